/**
 * `mcp-tasks` in a real pseudo-terminal (tmux): the live status line, Ctrl-C (cancel, then detach) and a form
 * elicitation answered through the prompts. The server counts what arrives, so "exactly one tasks/cancel" is
 * read from its request log.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTaskServer, type HttpTaskServer } from "../../../src/testing/index.js";
import { join } from "node:path";
import { ROOT } from "../../package/packed.js";
import { stateDir, Terminal, waitFor } from "./harness.js";
import { cliTestTools } from "./tools.js";

let server: HttpTaskServer;
let state: ReturnType<typeof stateDir>;
const terminals: Terminal[] = [];

beforeAll(async () => {
  state = stateDir();
  server = await startTaskServer({ tools: cliTestTools() });
});

afterEach(() => {
  for (const terminal of terminals.splice(0)) terminal.close();
});

afterAll(async () => {
  await server.close();
  state.remove();
});

function open(args: string[]): Terminal {
  const terminal = new Terminal(args, state.env, state.storeDir.replace(/mcp-tasks$/, ""));
  terminals.push(terminal);
  return terminal;
}

const cancels = (): number => server.requests.forMethod("tasks/cancel").length;

describe("mcp-tasks in a terminal", () => {
  it("redraws a live status line and prints the result", async () => {
    const terminal = open(["call", server.url, "slow_compute", "seconds=100", "label=live"]);
    await terminal.waitForText(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] slow_compute {2}\d+\.\ds {2}(calling|working)/);
    expect(await terminal.exitCode()).toBe(0);
    const screen = terminal.screen();
    expect(screen).toContain("✓ completed: slow_compute");
    expect(screen).toContain('Computed "live" in 100s');
  });

  it("Ctrl-C sends one tasks/cancel, shows the server's final word and exits 4", async () => {
    const before = cancels();
    const terminal = open(["call", server.url, "long_job"]);
    await terminal.waitForText("working  Crunching numbers");
    terminal.keys("C-c");
    expect(await terminal.exitCode()).toBe(4);
    const screen = terminal.screen();
    expect(screen).toContain("cancelling: sent tasks/cancel");
    expect(screen).toContain("the server confirmed the cancellation");
    expect(cancels() - before).toBe(1);
  });

  it("Ctrl-C with a stdio server cancels the task instead of killing the server", async () => {
    // The server shares the terminal; unless it runs in its own session, Ctrl-C reaches it too and it dies
    // before it can confirm the cancel.
    const stdioServer = [
      process.execPath,
      "--input-type=module",
      "-e",
      `const m = await import(${JSON.stringify(join(ROOT, "dist/testing/index.js"))}); await m.taskServerMain(["--stdio"]);`,
    ];
    const terminal = open(["call", "slow_compute", "seconds=600", "--", ...stdioServer]);
    await terminal.waitForText(/slow_compute {2}\d+\.\ds {2}working/);
    terminal.keys("C-c");
    expect(await terminal.exitCode()).toBe(4);
    expect(terminal.screen()).toContain("the server confirmed the cancellation");
  });

  it("a second Ctrl-C detaches, prints how to resume and exits 7, still with one tasks/cancel", async () => {
    const before = cancels();
    const terminal = open(["call", server.url, "stubborn_job"]);
    await terminal.waitForText("working  Not stopping");
    terminal.keys("C-c");
    await terminal.waitForText("cancelling: sent tasks/cancel");
    await waitFor(
      () => cancels() - before === 1,
      () => terminal.screen(),
    ); // the cancel is on the server
    terminal.keys("C-c");
    expect(await terminal.exitCode()).toBe(7);
    const screen = terminal.screen();
    expect(screen).toMatch(new RegExp(`follow it with: mcp-tasks watch \\S+ --server ${server.url}`));
    expect(cancels() - before).toBe(1);
  });

  it("asks a form elicitation's fields as prompts and sends the answers", async () => {
    const terminal = open(["call", server.url, "confirm_delete", "filename=notes.txt"]);
    await terminal.waitForText("Answer, decline or cancel? [a/d/c] (a):");
    expect(terminal.screen()).toContain("Delete notes.txt?");
    terminal.keys("a", "Enter");
    await terminal.waitForText("Confirm deletion [y/n]:");
    terminal.keys("maybe", "Enter");
    await terminal.waitForText("not a valid boolean");
    terminal.keys("y", "Enter");
    expect(await terminal.exitCode()).toBe(0);
    expect(terminal.screen()).toContain("Deleted notes.txt");
  });
});
