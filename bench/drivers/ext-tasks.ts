/**
 * Drives `@modelcontextprotocol/ext-tasks` 0.2.2 the documented way. Against a 2026-07-28 server: `withTasks(port)`
 * over the glue port, `session.callTool(...)`, then `execution.settle()`. Against a 2025-11-25 server (scenario
 * kind "legacy"): its README's minimal form, `createTaskSessionFromClient(client, { endpointId })` over a
 * connected MCP SDK `Client` (@modelcontextprotocol/client), which negotiates the 2025 era itself; ext-tasks
 * then drives the task through its `core/v1` shapes (`params.task`, `tasks/get`, `tasks/result`).
 * Its smallest poll interval is its built-in floor (`MIN_TASK_POLL_INTERVAL_MS`, 10 ms); it has no option to
 * change it.
 */
import { Client } from "@modelcontextprotocol/client";
import {
  createTaskSessionFromClient,
  withTasks,
  type TaskEnabledSession,
} from "@modelcontextprotocol/ext-tasks/client";
import { TransportSessionPort } from "../ext-tasks-port.js";
import { BENCH_TOOL } from "../fake-server.js";
import { countdown, type ConnectedLibrary, type LibraryDriver } from "./types.js";

export const extTasksDriver: LibraryDriver = {
  name: "ext-tasks",
  smallestIntervalMs: 10,
  async connect(transport, { kind }) {
    if (kind === "legacy") {
      const client = new Client({ name: "ext-tasks-bench-host", version: "1.0.0" });
      await client.connect(transport);
      if (client.getProtocolEra() !== "legacy")
        throw new Error(`ext-tasks: the SDK Client negotiated ${client.getNegotiatedProtocolVersion()}`);
      const session = createTaskSessionFromClient(client, { endpointId: "bench-endpoint" });
      if (!session.capabilities.execution)
        throw new Error("ext-tasks: the server's 2025-11-25 tasks capability was not detected");
      return connected(session, () => client.close());
    }
    const port = await TransportSessionPort.open(transport, "bench-endpoint");
    if (port.taskCapabilities.generation !== "v2")
      throw new Error("ext-tasks: the server's tasks extension was not detected");
    return connected(withTasks(port), () => transport.close());
  },
};

function connected(session: TaskEnabledSession, closeConnection: () => Promise<void>): ConnectedLibrary {
  return {
    callAll(count, observer) {
      const { ended, all } = countdown(count);
      for (let n = 0; n < count; n++) {
        session
          .callTool(BENCH_TOOL, { n })
          .then((execution) => execution.settle())
          .then(
            ({ outcome }) => {
              if (outcome.status === "completed") observer.resolved(outcome.result);
              else observer.failed(outcome.status === "failed" ? outcome.error : new Error(outcome.status));
              ended();
            },
            (error: unknown) => {
              observer.failed(error);
              ended();
            },
          );
      }
      return all;
    },
    async close() {
      await session.close();
      await closeConnection();
    },
  };
}
