/**
 * `conformance/baseline.yml`: what the suite may report without failing `npm run conformance`, with a reason for
 * every entry. Per side (`server`, `client`):
 *
 * - `skipped`: scenarios in which no check passes because the suite does not run them (all checks SKIPPED or
 *   INFO). Any other scenario without a passing check fails the run: conformance cannot pass by not running.
 * - `failing`: known failures, `<scenario>` or `<scenario>:<check-id>`, handed to the suite as its
 *   `--expected-failures` list (`suiteExpectedFailures`).
 *
 * Both map each entry to its reason (a non-empty string). Unknown keys, a missing reason, or a scenario listed both
 * as skipped and as failing are errors here, before anything runs.
 */
import { parse, stringify } from "yaml";

export type Side = "server" | "client";

export interface SideBaseline {
  /** Scenario → why the suite does not run it. */
  skipped: ReadonlyMap<string, string>;
  /** `<scenario>` or `<scenario>:<check-id>` → why it fails. */
  failing: ReadonlyMap<string, string>;
}

export type Baseline = Readonly<Record<Side, SideBaseline>>;

const SIDES: readonly Side[] = ["server", "client"];
const LISTS = ["skipped", "failing"] as const;

/** Reads the baseline file's text; `file` names it in errors. */
export function readBaseline(text: string, file = "conformance/baseline.yml"): Baseline {
  const fail = (message: string): never => {
    throw new Error(`${file}: ${message}`);
  };
  const root: unknown = parse(text) ?? {};
  if (!isRecord(root)) return fail("expected a mapping with server: and client:");
  for (const key of Object.keys(root)) {
    if (!SIDES.includes(key as Side)) fail(`unknown key ${JSON.stringify(key)} (expected server, client)`);
  }
  const read = (side: Side): SideBaseline => {
    const section: unknown = root[side] ?? {};
    if (!isRecord(section)) return fail(`${side}: expected a mapping with skipped: and failing:`);
    for (const key of Object.keys(section)) {
      if (!(LISTS as readonly string[]).includes(key)) {
        fail(`${side}: unknown key ${JSON.stringify(key)} (expected skipped, failing)`);
      }
    }
    const [skipped, failing] = LISTS.map((list) => {
      const entries: unknown = section[list] ?? {};
      if (!isRecord(entries)) return fail(`${side}.${list}: expected a mapping of entries to their reasons`);
      const map = new Map<string, string>();
      for (const [entry, reason] of Object.entries(entries)) {
        if (typeof reason !== "string" || reason.trim() === "") {
          fail(`${side}.${list}: ${JSON.stringify(entry)} needs its reason (a non-empty string)`);
        }
        if (list === "skipped" && entry.includes(":")) {
          fail(`${side}.skipped: ${JSON.stringify(entry)}: list whole scenarios here, not checks`);
        }
        map.set(entry, String(reason).trim());
      }
      return map;
    }) as [Map<string, string>, Map<string, string>];
    for (const scenario of skipped.keys()) {
      if ([...failing.keys()].some((entry) => scenarioOf(entry) === scenario)) {
        fail(`${side}: ${JSON.stringify(scenario)} is listed both as skipped and as failing`);
      }
    }
    return { skipped, failing };
  };
  return { server: read("server"), client: read("client") };
}

/** The scenario an entry names (`<scenario>` or `<scenario>:<check-id>`). */
export function scenarioOf(entry: string): string {
  const colon = entry.indexOf(":");
  return colon === -1 ? entry : entry.slice(0, colon);
}

/** The suite's own expected-failures file (`server:` and `client:` lists of entries) for `--expected-failures`. */
export function suiteExpectedFailures(baseline: Baseline): string {
  return stringify({
    server: [...baseline.server.failing.keys()],
    client: [...baseline.client.failing.keys()],
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
