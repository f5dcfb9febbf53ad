/**
 * Drives `@modelcontextprotocol/ext-tasks` 0.2.2 the documented way: `withTasks(port)` over the glue port,
 * `session.callTool(...)`, then `execution.settle()`. Its smallest poll interval is its built-in floor
 * (`MIN_TASK_POLL_INTERVAL_MS`, 10 ms); it has no option to change it.
 */
import { withTasks } from "@modelcontextprotocol/ext-tasks/client";
import { TransportSessionPort } from "../ext-tasks-port.js";
import { BENCH_TOOL } from "../fake-server.js";
import { countdown, type LibraryDriver } from "./types.js";

export const extTasksDriver: LibraryDriver = {
  name: "ext-tasks",
  smallestIntervalMs: 10,
  async connect(transport) {
    const port = await TransportSessionPort.open(transport, "bench-endpoint");
    if (port.taskCapabilities.generation !== "v2")
      throw new Error("ext-tasks: the server's tasks extension was not detected");
    const session = withTasks(port);
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
        await transport.close();
      },
    };
  },
};
