/**
 * The floor: the least a poller can do in this harness. Raw JSON-RPC over the same transport, one timer per
 * task, the server's poll interval taken as given, no validation and no state beyond the pending request.
 * No library can be cheaper than this; its column shows what the harness and the fake server cost by
 * themselves (on some machines a timer wake-up alone costs more than a poll).
 *
 * Against a 2025-11-25 server (scenario kind "legacy") it does the least that flow allows: `initialize`
 * (outside the measured window), `tools/call` with `params.task`, `tasks/get` until `completed`, then one
 * `tasks/result`.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { BENCH_TOOL } from "../fake-server.js";
import { countdown, type CallObserver, type LibraryDriver } from "./types.js";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench-floor", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

interface TaskFields {
  status?: string;
  taskId?: string;
  pollIntervalMs?: number;
  pollInterval?: number;
  result?: unknown;
}

interface Reply {
  id: number;
  result?: TaskFields & { task?: TaskFields };
  error?: { message: string };
}

type Request = (method: string, params: Record<string, unknown>) => Promise<Reply>;

export const floorDriver: LibraryDriver = {
  name: "floor",
  smallestIntervalMs: 1,
  async connect(transport, { kind }) {
    const legacy = kind === "legacy";
    const request = await rawJsonRpc(transport, legacy ? undefined : ENVELOPE);
    if (legacy) {
      const init = await request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "bench-floor", version: "1.0.0" },
      });
      if (init.error) throw new Error(`initialize failed: ${init.error.message}`);
    }
    return {
      callAll(count, observer) {
        const { ended, all } = countdown(count);
        const follow = legacy
          ? legacyFollower(request, observer, ended)
          : modernFollower(request, observer, ended);
        const task = legacy ? { task: { ttl: 3_600_000 } } : {};
        for (let n = 0; n < count; n++)
          void request("tools/call", { name: BENCH_TOOL, arguments: { n }, ...task }).then(follow);
        return all;
      },
      close: () => transport.close(),
    };
  },
};

/** One pending-request map over the transport; `meta` is added to every request when given. */
async function rawJsonRpc(transport: Transport, meta: Record<string, unknown> | undefined): Promise<Request> {
  const pending = new Map<number, (reply: Reply) => void>();
  let nextId = 0;
  transport.onmessage = (message) => {
    const reply = message as unknown as Reply;
    const settle = pending.get(reply.id);
    pending.delete(reply.id);
    settle?.(reply);
  };
  await transport.start();
  return (method, params) =>
    new Promise<Reply>((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve);
      void transport.send({
        jsonrpc: "2.0",
        id,
        method,
        params: meta ? { ...params, _meta: meta } : params,
      } as JSONRPCMessage);
    });
}

function modernFollower(request: Request, observer: CallObserver, ended: () => void) {
  const follow = (reply: Reply): void => {
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
  return follow;
}

function legacyFollower(request: Request, observer: CallObserver, ended: () => void) {
  const fail = (reply: Reply) => {
    observer.failed(new Error(reply.error?.message ?? "no result"));
    ended();
  };
  const follow = (reply: Reply): void => {
    // The creation answer nests the task under `task`; `tasks/get` answers it flat.
    const task = reply.result?.task ?? reply.result;
    if (!task || reply.error) return fail(reply);
    if (task.status === "completed") {
      void request("tasks/result", { taskId: task.taskId }).then((answer) => {
        if (!answer.result || answer.error) return fail(answer);
        observer.resolved(answer.result);
        ended();
      });
      return;
    }
    setTimeout(
      () => void request("tasks/get", { taskId: task.taskId }).then(follow),
      task.pollInterval ?? 1000,
    );
  };
  return follow;
}
