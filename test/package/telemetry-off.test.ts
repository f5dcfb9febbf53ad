/**
 * Without the `telemetry` option the client loads nothing of OpenTelemetry and sends no trace keys: a child
 * process runs a task on the build against the reference server and reports which `@opentelemetry/*` files it
 * loaded and which `_meta` trace keys the server received. The same run with `telemetry: true` is the control
 * that shows the check sees a load.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { ROOT, assertFreshBuild } from "./packed.js";

const run = promisify(execFile);
const SCRIPT = join(import.meta.dirname, "fixtures", "telemetry-load-check.mjs");

async function loadCheck(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [SCRIPT, ...args], { cwd: ROOT, timeout: 30_000 });
  return JSON.parse(stdout.trim().split("\n").pop() as string) as Record<string, unknown>;
}

beforeAll(() => assertFreshBuild());

describe("telemetry off", () => {
  it("loads no @opentelemetry module and sends no traceparent, tracestate or baggage", async () => {
    const [off, on] = await Promise.all([loadCheck(), loadCheck("on")]);
    // The task's four requests and one tools/list, for the result check (validateOutput); none with trace keys.
    expect(off).toEqual({ outcome: "completed", requests: 5, loaded: 0, traceKeys: [] });
    // The control: the same task with telemetry on loads the API (the global no-op tracer sends no context).
    expect(on).toMatchObject({ outcome: "completed" });
    expect(on.loaded).toBeGreaterThan(0);
  });
});
