/**
 * `mcp-tasks` without a terminal, against the reference server over Streamable HTTP and stdio: results, the
 * plain and NDJSON outputs, bad arguments, `--detach` then `watch` from another process, and `ls` after a
 * process was killed.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTaskServer, type HttpTaskServer } from "../../../src/testing/index.js";
import { ROOT } from "../../package/packed.js";
import { runCli, spawnCli, stateDir, waitFor } from "./harness.js";
import { cliTestTools } from "./tools.js";

let server: HttpTaskServer;
let state: ReturnType<typeof stateDir>;

beforeAll(async () => {
  state = stateDir();
  server = await startTaskServer({ tools: cliTestTools() });
});

afterAll(async () => {
  await server.close();
  state.remove();
});

/** The reference server over stdio, from the build (as a user's `-- <command>` would start a server). */
const stdioServer = [
  process.execPath,
  "--input-type=module",
  "-e",
  `const m = await import(${JSON.stringify(join(ROOT, "dist/testing/index.js"))}); await m.taskServerMain(["--stdio", "--time-scale", "0.01"]);`,
];

describe("mcp-tasks call", () => {
  it("prints the result on stdout and timestamped progress on stderr, and exits 0", async () => {
    const run = await runCli(["call", server.url, "slow_compute", "seconds=50", "label=report"], state.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Computed "report" in 50s\n');
    expect(run.stderr).toMatch(/^\d{4}-\d\d-\d\dT\S+Z task \S+ created$/m);
    expect(run.stderr).toMatch(/^\d{4}-\d\d-\d\dT\S+Z working$/m);
    expect(run.stderr).toContain("✓ completed: slow_compute");
  });

  it("prints NDJSON events with --json, one object per line, ending with the outcome", async () => {
    const run = await runCli(["call", server.url, "failing_job", "--json"], state.env);
    const events = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((event) => event.event)).toEqual(["task", "update", "update", "outcome"]);
    expect(events[2]).toMatchObject({ status: "completed", terminal: true });
    expect(events[3]).toMatchObject({ kind: "completed", exitCode: 1, result: { isError: true } });
    expect(run.code).toBe(1); // a tool error
  });

  it("calls a tool on a stdio server started from `-- <command>`, in both output modes", async () => {
    const [plain, json] = await Promise.all([
      runCli(["call", "slow_compute", '{"seconds":20,"label":"stdio"}', "--", ...stdioServer], state.env),
      runCli(["call", "greet", "name=Ada", "--json", "--", ...stdioServer], state.env),
    ]);
    expect(plain.stdout).toBe('Computed "stdio" in 20s\n');
    expect(plain.stderr).toMatch(/^\S+Z task \S+ created$/m);
    expect(plain.code).toBe(0);
    const last = JSON.parse(json.stdout.trimEnd().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
    expect(last).toMatchObject({
      event: "outcome",
      kind: "completed",
      result: { content: [{ text: "Hello, Ada!" }] },
    });
    expect(json.code).toBe(0);
  });

  it("without a terminal, applies the --unanswered policy to input requests and says so", async () => {
    const run = await runCli(
      ["call", server.url, "confirm_delete", "filename=notes.txt", "--unanswered", "decline"],
      state.env,
    );
    expect(run.stderr).toMatch(/input confirm not answered \(.+\); --unanswered decline applies/);
    expect(run.stdout).toBe("Kept notes.txt\n");
    expect(run.code).toBe(0);
  });

  it.each([
    [
      "an unknown tool",
      () => ["call", server.url, "no_such_tool"],
      /^mcp-tasks: .* refused no_such_tool: Unknown tool/,
    ],
    [
      "invalid JSON",
      () => ["call", server.url, "slow_compute", '{"seconds":'],
      /^mcp-tasks: invalid JSON in arguments/,
    ],
    [
      "an unreachable server",
      () => ["call", "http://127.0.0.1:9/mcp", "greet"],
      /^mcp-tasks: cannot connect to http:\/\/127\.0\.0\.1:9\/mcp/,
    ],
    [
      "an unknown option",
      () => ["call", server.url, "greet", "--frobnicate"],
      /^mcp-tasks: Unknown option '--frobnicate'/,
    ],
  ])("refuses %s with one line on stderr and the usage exit code", async (_what, args, message) => {
    const run = await runCli(args(), state.env);
    expect(run.code).toBe(2);
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe("");
  });
});

describe("tasks that outlive the process", () => {
  it("--detach prints the ref at once; `watch` in another process follows the task to its result", async () => {
    const detached = await runCli(["call", server.url, "slow_compute", "seconds=150", "--detach"], state.env);
    expect(detached.code).toBe(7); // detached, as --help and docs/command-line.md promise
    const ref = JSON.parse(detached.stdout) as { taskId: string; toolName: string };
    expect(ref.toolName).toBe("slow_compute");
    expect(detached.stderr).toContain(`mcp-tasks watch ${ref.taskId} --server ${server.url}`);
    const watched = await runCli(["watch", ref.taskId], state.env);
    expect(watched.stdout).toBe('Computed "result" in 150s\n');
    expect(watched.code).toBe(0);
    const listed = await runCli(["ls", "--json"], state.env);
    expect(listed.stdout).not.toContain(ref.taskId); // the server said its last word: the ref is gone
  });

  it("refuses --detach on a stdio server, which stops with the command, before starting anything", async () => {
    const run = await runCli(
      ["call", "slow_compute", "seconds=150", "--detach", "--", ...stdioServer],
      state.env,
    );
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("--detach needs a server that outlives this command");
  });

  it("after --timeout on a stdio server, says the task stops with the server instead of a resume hint", async () => {
    const run = await runCli(
      ["call", "slow_compute", "seconds=150", "--timeout", "300ms", "--", ...stdioServer],
      state.env,
    );
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(/task \S+ created/);
    expect(run.stderr).toContain("the stdio server stops with this command, and the task with it");
    expect(run.stderr).not.toContain("mcp-tasks watch");
    const taskId = /task (\S+) created/.exec(run.stderr)?.[1] as string;
    expect((await runCli(["ls", "--json"], state.env)).stdout).not.toContain(taskId); // nothing left to follow
  });

  it("`ls` lists the task of a process that was killed, with its server, tool and last status", async () => {
    const child = spawnCli(["call", server.url, "long_job"], state.env);
    try {
      const taskId = await waitFor(
        () => /task (\S+) created/.exec(child.output())?.[1],
        () => child.output(),
      );
      // The status note reaches the store right after the status line is printed.
      await waitFor(
        () => storedText(state.storeDir).includes("Crunching numbers"),
        () => child.output(),
      );
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
      const listed = await runCli(["ls"], state.env);
      const row = listed.stdout.split("\n").find((line) => line.startsWith(taskId));
      expect(row).toMatch(
        new RegExp(
          `^${taskId}\\s+${server.url.replaceAll(".", "\\.")}\\s+long_job\\s+\\d+s\\s+working: Crunching numbers$`,
        ),
      );
      const cancelled = await runCli(["cancel", taskId], state.env);
      // The server's `cancelled` status may reach the client before its acknowledgement of `tasks/cancel` (the
      // handle then ends without `ack`, as `CancelResult` says): the final word is what the user relies on.
      expect(cancelled.stderr).toContain("✗ cancelled");
      expect(cancelled.code).toBe(4);
      expect((await runCli(["ls", "--json"], state.env)).stdout).toBe("");
    } finally {
      child.kill("SIGKILL");
    }
  });
});

/** Everything the store directory holds (refs, and the command's notes in `cli/`), as text. */
function storedText(dir: string): string {
  return [dir, join(dir, "cli")]
    .filter((folder) => existsSync(folder))
    .flatMap((folder) =>
      readdirSync(folder)
        // Only files in place: a write in progress (`.tmp-…`, `….tmp`) may still be lost to the SIGKILL that follows.
        .filter((name) => name.endsWith(".json") && !name.startsWith("."))
        .map((name) => {
          try {
            return readFileSync(join(folder, name), "utf8");
          } catch {
            return ""; // renamed away meanwhile
          }
        }),
    )
    .join("\n");
}

describe("mcp-tasks tools", () => {
  it("lists the server's tools with their descriptions", async () => {
    const run = await runCli(["tools", server.url], state.env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("slow_compute  [task: decided per call]\n    Works for `seconds` seconds");
    expect(run.stdout).toContain(
      "long_job  [task: decided per call]\n    Works for ten minutes unless cancelled.",
    );
  });
});
