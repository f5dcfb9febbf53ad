import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Session } from "../../../src/session/session.js";
import { resolveTransport } from "../../../src/session/targets.js";
import { classifyResult, parseGetTaskResult } from "../../../src/protocol/codec.js";
import { TransportError } from "../../../src/protocol/errors.js";

const fixture = fileURLToPath(new URL("./fixtures/stdio-server.ts", import.meta.url));
const root = fileURLToPath(new URL("../../../", import.meta.url));

async function spawn(mode: "modern" | "legacy") {
  const transport = await resolveTransport({
    command: process.execPath,
    args: ["--import", "tsx", fixture, mode],
    cwd: root,
  });
  const session = new Session(transport, {
    clientInfo: { name: "stdio-test", version: "1.0.0" },
    capabilities: {},
    // A busy machine can take longer than the 10 s default to start a tsx child; silence would read as legacy.
    probeTimeoutMs: 30_000,
  });
  return { session, transport: transport as StdioClientTransport, info: await session.connect() };
}

describe("a stdio round trip", () => {
  it("negotiates 2026-07-28 with a v2 SDK server and follows a task to its result", async () => {
    const { session, info } = await spawn("modern");
    try {
      expect(info).toMatchObject({
        era: "modern",
        supportsTasks: true,
        serverInfo: { name: "modern-tasks" },
      });
      const answer = classifyResult(
        "tools/call",
        await session.request("tools/call", { name: "slow", arguments: { text: "s" } }),
      );
      expect(answer).toMatchObject({ kind: "task", task: { taskId: "task-s", status: "working" } });
      const snapshot = parseGetTaskResult(await session.request("tasks/get", { taskId: "task-s" }));
      expect(snapshot).toMatchObject({
        status: "completed",
        result: { content: [{ type: "text", text: "done task-s" }] },
      });
      await expect(session.request("tasks/cancel", { taskId: "task-s" })).resolves.toMatchObject({
        resultType: "complete",
      });
    } finally {
      await session.close();
    }
  });

  it("falls back to initialize with a 2025-only v1 SDK server, where a plain tool call works", async () => {
    const { session, info } = await spawn("legacy");
    try {
      expect(info).toMatchObject({ era: "legacy", protocolVersion: "2025-11-25", supportsTasks: false });
      const result = await session.request("tools/call", { name: "echo", arguments: { text: "hello" } });
      expect(result).toEqual({ content: [{ type: "text", text: "hello" }] });
    } finally {
      await session.close();
    }
  });

  it("rejects waiting requests with a transient TransportError when the server process dies", async () => {
    const { session, transport } = await spawn("modern");
    const pending = session
      .request("tools/call", { name: "hang" }, { timeoutMs: 10_000 })
      .catch((e: unknown) => e);
    process.kill(transport.pid!, "SIGKILL");
    const outcome = await pending;
    expect(outcome).toBeInstanceOf(TransportError);
    expect(outcome).toMatchObject({ transient: true });
    expect((outcome as Error).message).toMatch(/connection closed/);
    expect(session.isClosed).toBe(true);
    await session.close();
  });
});
