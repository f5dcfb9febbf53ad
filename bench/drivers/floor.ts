/**
 * The floor: the least a poller can do in this harness. Raw JSON-RPC over the same transport, one timer per
 * task, the server's `pollIntervalMs` taken as given, no validation and no state beyond the pending request.
 * No library can be cheaper than this; its column shows what the harness and the fake server cost by
 * themselves (on some machines a timer wake-up alone costs more than a poll).
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/client";
import { BENCH_TOOL } from "../fake-server.js";
import { countdown, type LibraryDriver } from "./types.js";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench-floor", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

interface Reply {
  id: number;
  result?: { status?: string; taskId?: string; pollIntervalMs?: number; result?: unknown };
  error?: { message: string };
}

export const floorDriver: LibraryDriver = {
  name: "floor",
  smallestIntervalMs: 1,
  async connect(transport) {
    const pending = new Map<number, (reply: Reply) => void>();
    let nextId = 0;
    transport.onmessage = (message) => {
      const reply = message as unknown as Reply;
      const settle = pending.get(reply.id);
      pending.delete(reply.id);
      settle?.(reply);
    };
    await transport.start();
    const request = (method: string, params: Record<string, unknown>) =>
      new Promise<Reply>((resolve) => {
        const id = ++nextId;
        pending.set(id, resolve);
        void transport.send({
          jsonrpc: "2.0",
          id,
          method,
          params: { ...params, _meta: ENVELOPE },
        } as JSONRPCMessage);
      });

    return {
      callAll(count, observer) {
        const { ended, all } = countdown(count);
        const follow = (reply: Reply) => {
          const task = reply.result;
          if (!task || reply.error) {
            observer.failed(new Error(reply.error?.message ?? "no result"));
            return ended();
          }
          if (task.status === "completed") {
            observer.resolved(task.result);
            return ended();
          }
          setTimeout(
            () => void request("tasks/get", { taskId: task.taskId }).then(follow),
            task.pollIntervalMs ?? 1000,
          );
        };
        for (let n = 0; n < count; n++)
          void request("tools/call", { name: BENCH_TOOL, arguments: { n } }).then(follow);
        return all;
      },
      close: () => transport.close(),
    };
  },
};
