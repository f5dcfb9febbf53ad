/**
 * A handle followed by ref writes refs with the identity its task has, not the connection's: the generation it
 * was made under and the HTTP session it lives in. Checked through `handle.ref`, which is what a store receives.
 */
import { describe, expect, it } from "vitest";
import { TaskClient, type TaskRef } from "../../../src/index.js";
import type { ServerInfo } from "../../../src/session/types.js";
import { FakeTransport } from "../session/fake-transport.js";

const working = (taskId: string) => ({
  taskId,
  status: "working",
  createdAt: "2026-01-01T00:00:00Z",
  lastUpdatedAt: "2026-01-01T00:00:00Z",
  ttl: null,
});

/** A client over a fake connection that answers every tasks/get with a 2025-shaped working task. */
function clientOn(server: ServerInfo, sessionId?: string): { client: TaskClient; warnings: string[] } {
  const transport = Object.assign(
    new FakeTransport((message, self) => {
      if (message.method === "tasks/get")
        self.answer(message.id, working(String(message.params?.["taskId"])));
    }),
    { sessionId },
  );
  const warnings: string[] = [];
  const client = TaskClient.overNegotiated(transport, server, {
    logger: { warn: (message: string) => warnings.push(message) },
  });
  return { client, warnings };
}

const legacyServer: ServerInfo = {
  era: "legacy",
  protocolVersion: "2025-11-25",
  supportsTasks: true,
  capabilities: { tasks: { cancel: {}, requests: { tools: { call: {} } } } },
};
const legacyRef = (fields: Partial<TaskRef> = {}): TaskRef => ({
  v: 1,
  taskId: "t-1",
  server: { protocolVersion: "2025-11-25" },
  method: "tools/call",
  toolName: "report",
  answeredInputKeys: [],
  era: "legacy",
  ...fields,
});

describe("refs of a task followed by ref", () => {
  it("keep the 2025-11-25 generation on a 2026-07-28 connection (a dual-era server)", async () => {
    const { client } = clientOn({ era: "modern", protocolVersion: "2026-07-28", supportsTasks: true });
    const handle = client.task(legacyRef());
    expect((await handle.ref)?.era).toBe("legacy");
    await client.close();
  });

  it("keep the session the task lives in, even where the client cannot join it (and say so)", async () => {
    const session = { id: "s-theirs", protocolVersion: "2025-11-25" };
    const { client, warnings } = clientOn(legacyServer, "s-mine");
    const handle = client.task(legacyRef({ session }));
    expect((await handle.ref)?.session).toEqual(session);
    expect(warnings.filter((warning) => warning.includes("cannot join"))).toHaveLength(1);
    await client.close();
  });

  it("do not gain the client's own session when the ref had none", async () => {
    const { client } = clientOn(legacyServer, "s-mine");
    const handle = client.task(legacyRef());
    expect((await handle.ref)?.session).toBeUndefined();
    await client.close();
  });
});
