/**
 * The public surface stays what users need. The main entry is what agent and UI code import: at most 65 names
 * (values and types together) of which at most 16 error classes, one per thing a caller does differently
 * (docs/errors.md). Transport plumbing lives on `mcp-tasks/transport`, store-author parts on `mcp-tasks/store`. The built declarations carry no member
 * marked `@internal` (the client's own seams on public classes and plug-ins), and a `TaskHandle` cannot be made
 * with `new`. Counts come from scripts/export-counts.ts (`npm run exports`), which reads the entries' sources.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { entryExports, type EntryExports } from "../../scripts/export-counts.js";
import { assertFreshBuild, ROOT } from "./packed.js";

let entries: Map<string, EntryExports>;

beforeAll(() => {
  entries = new Map(entryExports().map((entry) => [entry.entry, entry]));
}, 60_000);

function namesOf(entry: string): string[] {
  const found = entries.get(entry);
  if (found === undefined) throw new Error(`no entry ${entry}`);
  return found.names;
}

/** The budgets: raising one needs a reason a user can see. */
const MAIN_ENTRY_NAMES = 65;
const MAIN_ENTRY_ERROR_CLASSES = 16;

describe("the main entry", () => {
  it(`exports at most ${MAIN_ENTRY_NAMES} names, values and types together`, () => {
    expect(namesOf("mcp-tasks").length).toBeLessThanOrEqual(MAIN_ENTRY_NAMES);
  });

  it(`exports at most ${MAIN_ENTRY_ERROR_CLASSES} error classes, grouped by what the caller does`, () => {
    const classes = entries.get("mcp-tasks")?.errorClasses ?? [];
    expect(classes.length).toBeLessThanOrEqual(MAIN_ENTRY_ERROR_CLASSES);
    // The family bases callers branch on.
    expect(classes).toEqual(
      expect.arrayContaining([
        "McpTasksError",
        "TransportError",
        "AuthError",
        "TaskError",
        "TaskStoreError",
        "ProtocolError",
      ]),
    );
  });

  it("leaves transport plumbing to mcp-tasks/transport", () => {
    const plumbing = [
      "McpTransport",
      "OutgoingMessage",
      "SendOptions",
      "FetchLike",
      "withHttpErrorMapping",
      "withRoutingHeaders",
      "TASKS_EXTENSION_ID",
      "PROTOCOL_VERSION",
      "TASK_CAPABLE_METHODS",
    ];
    expect(namesOf("mcp-tasks").filter((name) => plumbing.includes(name))).toEqual([]);
    expect(namesOf("mcp-tasks/transport")).toEqual(expect.arrayContaining(plumbing));
  });

  it("leaves what store and validator authors need to their entries", () => {
    const elsewhere = ["TaskStore", "LeaseLostError", "JsonSchemaValidator", "OutputProblem"];
    expect(namesOf("mcp-tasks").filter((name) => elsewhere.includes(name))).toEqual([]);
    expect(namesOf("mcp-tasks/store")).toEqual(expect.arrayContaining(["TaskStore", "LeaseLostError"]));
    expect(namesOf("mcp-tasks/json-schema")).toEqual(
      expect.arrayContaining(["JsonSchemaValidator", "OutputProblem"]),
    );
  });
});

describe("the built declarations", () => {
  const declarations = (): Array<[string, string]> => {
    assertFreshBuild();
    const files: Array<[string, string]> = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.d\.c?ts$/.test(entry.name)) files.push([path, readFileSync(path, "utf8")]);
      }
    };
    walk(join(ROOT, "dist"));
    return files;
  };

  it("carry no member marked @internal", () => {
    const leaking = declarations().filter(([, text]) => text.includes("@internal"));
    expect(leaking.map(([path]) => path)).toEqual([]);
  });

  it("give TaskHandle a private constructor and TaskClient no adopt", () => {
    const main = readFileSync(join(ROOT, "dist", "index.d.ts"), "utf8");
    const handle = /declare class TaskHandle[^]*?\n}\n/.exec(main)?.[0] ?? "";
    expect(handle).toContain("private constructor();");
    expect(handle).not.toContain("TaskCore");
    const client = /declare class TaskClient[^]*?\n}\n/.exec(main)?.[0] ?? "";
    expect(client).toContain("static connect");
    expect(client).not.toMatch(/static adopt\b/);
  });
});
