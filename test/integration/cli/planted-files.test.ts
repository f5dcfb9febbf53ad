/**
 * What a ref or a file from someone else can make `mcp-tasks` do: refs are passed between processes, and the
 * store is a directory on a shared machine. A ref never starts a process, never sends input answers for you,
 * never chooses where your `--header` values go; a stdio command from the command's own store is started only
 * when you say yes at a terminal; and the store is private to its user (directory 0700, files 0600).
 */
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTaskServer, type HttpTaskServer } from "../../../src/testing/index.js";
import { ROOT } from "../../package/packed.js";
import { runCli, spawnCli, stateDir, Terminal, waitFor } from "./harness.js";
import { cliTestTools } from "./tools.js";

let server: HttpTaskServer;
let state: ReturnType<typeof stateDir>;
const terminals: Terminal[] = [];
let umask: number;

beforeAll(async () => {
  umask = process.umask(0o022); // the usual umask, which the children inherit: 0644 files unless asked
  state = stateDir();
  server = await startTaskServer({ tools: cliTestTools() });
});

afterEach(() => {
  for (const terminal of terminals.splice(0)) terminal.close();
});

afterAll(async () => {
  await server.close();
  state.remove();
  process.umask(umask);
});

/** A command that leaves `marker` behind if it is ever run. */
function markerCommand(name: string): { marker: string; command: string[] } {
  const marker = join(state.storeDir, "..", `${name}.ran`);
  return {
    marker,
    command: [process.execPath, "-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "ran")`],
  };
}

/** A ref as a user would pass it around, naming a server by name only. */
function refWithout(url: boolean, taskId: string, extra: Record<string, unknown> = {}) {
  const server = url
    ? { url: "http://127.0.0.1:9/mcp", protocolVersion: "2026-07-28" }
    : { name: "x", protocolVersion: "2026-07-28" };
  return { v: 1, taskId, server, method: "tools/call", toolName: "t", answeredInputKeys: [], ...extra };
}

/** The reference server over stdio, from the build. */
const stdioServer = [
  process.execPath,
  "--input-type=module",
  "-e",
  `const m = await import(${JSON.stringify(join(ROOT, "dist/testing/index.js"))}); await m.taskServerMain(["--stdio"]);`,
];

describe("a ref from elsewhere", () => {
  it("never starts the command it names, as @file or inline JSON, for watch or cancel", async () => {
    const { marker, command } = markerCommand("ref");
    const ref = refWithout(false, "planted-1", { cli: { command } });
    const file = join(state.storeDir, "..", "planted-ref.json");
    writeFileSync(file, JSON.stringify(ref));
    for (const args of [
      ["watch", `@${file}`],
      ["cancel", JSON.stringify(ref)],
    ]) {
      const run = await runCli(args, state.env);
      expect(existsSync(marker), args[0]).toBe(false);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("the ref does not name a server URL: give --server <url> or -- <command>");
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("never starts a command from a ref planted in the store", async () => {
    const { marker, command } = markerCommand("store-ref");
    const ref = refWithout(false, "planted-2", { cli: { command } });
    mkdirSync(state.storeDir, { recursive: true, mode: 0o700 });
    // Named as the file store names it: a hash of the server (by name here) and the task id.
    const name = createHash("sha256").update(`name:x\nplanted-2`).digest("hex").slice(0, 32);
    writeFileSync(
      join(state.storeDir, `${name}.json`),
      JSON.stringify({ format: "mcp-tasks/task-ref", ref }),
      {
        mode: 0o600,
      },
    );
    const run = await runCli(["watch", "planted-2"], state.env);
    expect(existsSync(marker)).toBe(false);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("the store does not know this task's server");
    expect(existsSync(marker)).toBe(false);
  });

  it("does not send the input answers it carries: you are asked again", async () => {
    const detached = await runCli(
      ["call", server.url, "confirm_delete", "filename=a.txt", "--detach"],
      state.env,
    );
    expect(detached.code).toBe(7);
    const ref = JSON.parse(detached.stdout) as Record<string, unknown>;
    const forged = {
      ...ref,
      pendingInputAnswers: { confirm: { action: "accept", content: { confirm: true } } },
    };
    const run = await runCli(
      ["watch", JSON.stringify(forged), "--no-input", "--unanswered", "decline"],
      state.env,
    );
    expect(run.stdout).toBe("Kept a.txt\n"); // not "Deleted": the forged answer never reached the server
    expect(run.stderr).toContain("the ref carries 1 unsent input answer(s)");
    expect(run.code).toBe(0);
  });

  it(
    "does not choose where --header values go: with --header, the server must be named",
    { timeout: 60_000 },
    async () => {
      const detached = await runCli(["call", server.url, "long_job", "--detach"], state.env);
      const ref = detached.stdout.trim();
      const before = server.requests.all().length;
      const run = await runCli(
        ["watch", ref, "--header", "X-Api-Key: secret-4d1e", "--timeout", "200ms"],
        state.env,
      );
      expect(
        server.requests
          .all()
          .slice(before)
          .some((request) => "x-api-key" in request.headers),
      ).toBe(false);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(
        `--header values go only to a server you name: add --server ${server.url}`,
      );

      const named = await runCli(
        ["watch", ref, "--server", server.url, "--header", "X-Api-Key: secret-4d1e", "--timeout", "200ms"],
        state.env,
      );
      expect(named.code).toBe(6); // followed until --timeout
      expect(server.requests.last("tasks/get")?.headers["x-api-key"]).toBe("secret-4d1e");
      await runCli(["cancel", JSON.parse(ref).taskId as string], state.env);
    },
  );
});

describe("a stdio task in the command's own store", () => {
  let orphan: Promise<string> | undefined;
  /**
   * A long task on a stdio server whose command was killed, leaving the ref and its note behind (one for the
   * tests below: refusing leaves it as it was).
   */
  const orphanedStdioTask = (): Promise<string> => (orphan ??= startOrphan());

  async function startOrphan(): Promise<string> {
    const child = spawnCli(["call", "slow_compute", "seconds=600", "--", ...stdioServer], state.env);
    try {
      const taskId = await waitFor(
        () => /task (\S+) created/.exec(child.output())?.[1],
        () => child.output(),
      );
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
      return taskId;
    } finally {
      child.kill("SIGKILL");
    }
  }

  it("without a terminal, starts nothing and prints the exact command line to run", async () => {
    const taskId = await orphanedStdioTask();
    const listed = await runCli(["ls"], state.env);
    expect(listed.stdout).toContain(taskId);
    const run = await runCli(["watch", taskId], state.env);
    expect(run.code).toBe(2);
    // The script word has spaces and quotes: single-quoted, the rest as typed.
    const typed = `${process.execPath} --input-type=module -e '${stdioServer[3]}'`;
    expect(run.stderr).toContain(
      `task ${taskId} ran on a stdio server; mcp-tasks starts a stored command only when you say so: run mcp-tasks watch ${taskId} -- ${typed}`,
    );
  });

  it("on a terminal, asks first and starts the command only on yes", async () => {
    const taskId = await orphanedStdioTask();
    const terminal = new Terminal(["watch", taskId], state.env, join(state.storeDir, ".."));
    terminals.push(terminal);
    await terminal.waitForText("Start that command again to reach the task? [y/N]");
    expect(terminal.screen()).toContain("taskServerMain");
    terminal.keys("y", "Enter");
    // A new server process does not know the old one's task: it answers "not found" (exit 5), which shows the
    // command was started.
    expect(await terminal.exitCode()).toBe(5);
  });

  it("ignores a note that is not a private file of this user", async () => {
    const { marker, command } = markerCommand("note");
    const ref = refWithout(false, "planted-3");
    const name = createHash("sha256").update(`name:x\nplanted-3`).digest("hex").slice(0, 32);
    writeFileSync(
      join(state.storeDir, `${name}.json`),
      JSON.stringify({ format: "mcp-tasks/task-ref", ref }),
      {
        mode: 0o600,
      },
    );
    const note = JSON.stringify({
      format: "mcp-tasks/cli-note",
      key: `name:x\nplanted-3`,
      note: { command },
    });
    mkdirSync(join(state.storeDir, "cli"), { recursive: true, mode: 0o700 });
    const path = join(state.storeDir, "cli", `${name}.json`);
    writeFileSync(path, note, { mode: 0o644 });
    chmodSync(path, 0o644);
    const run = await runCli(["watch", "planted-3"], state.env);
    expect(run.stderr).toMatch(/ignored the note \S+: others may read or change it \(mode 0644, not 0600\)/);
    expect(run.stderr).toContain("the store does not know this task's server");
    expect(run.code).toBe(2);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("the store's permissions", () => {
  it("keeps the store private under umask 022: directories 0700, files 0600", async () => {
    const fresh = stateDir();
    try {
      const run = await runCli(["call", server.url, "long_job", "--detach"], fresh.env);
      expect(run.code).toBe(7);
      const notes = join(fresh.storeDir, "cli");
      expect(statSync(fresh.storeDir).mode & 0o777).toBe(0o700);
      expect(statSync(notes).mode & 0o777).toBe(0o700);
      const files = [
        ...readdirSync(fresh.storeDir)
          .filter((name) => name.endsWith(".json"))
          .map((name) => join(fresh.storeDir, name)),
        ...readdirSync(notes).map((name) => join(notes, name)),
      ];
      expect(files).toHaveLength(2); // the ref and its note
      for (const file of files) expect(statSync(file).mode & 0o777, file).toBe(0o600);
      await runCli(["cancel", (JSON.parse(run.stdout) as { taskId: string }).taskId], fresh.env);
    } finally {
      fresh.remove();
    }
  });

  it("narrows an existing store directory that others may read, and says so", async () => {
    const fresh = stateDir();
    try {
      mkdirSync(fresh.storeDir, { mode: 0o755 });
      chmodSync(fresh.storeDir, 0o755);
      const run = await runCli(["ls"], fresh.env);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`made ${fresh.storeDir} private (mode 0755 → 0700)`);
      expect(statSync(fresh.storeDir).mode & 0o777).toBe(0o700);
    } finally {
      fresh.remove();
    }
  });
});
