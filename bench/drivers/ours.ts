/**
 * Drives mcp-tasks: `TaskClient.connect(transport)`, then `callTool` returns a handle that is awaited.
 * For the smallest interval it allows, the client is told `polling: { minIntervalMs: 1, jitter: 0 }`;
 * otherwise it runs with its defaults (which listen for notifications where the server can push).
 * `oursPollingDriver` is the same with `notifications: "off"`, the polling side of the push scenarios.
 */
import { TaskClient, type TaskClientOptions } from "../../src/index.js";
import { BENCH_TOOL } from "../fake-server.js";
import { countdown, type LibraryDriver, type LibraryName } from "./types.js";

export const oursDriver = driver("ours", {});
export const oursPollingDriver = driver("ours-polling", { notifications: "off" });

export function driver(name: LibraryName, base: TaskClientOptions): LibraryDriver {
  return {
    name,
    smallestIntervalMs: 1,
    async connect(transport, { smallestInterval }) {
      const client = await TaskClient.connect(
        transport,
        smallestInterval ? { ...base, polling: { minIntervalMs: 1, jitter: 0 } } : base,
      );
      return {
        callAll(count, observer) {
          const { ended, all } = countdown(count);
          for (let n = 0; n < count; n++) {
            client.callTool(BENCH_TOOL, { n }).then(
              (result) => {
                observer.resolved(result);
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
        close: () => client.close(),
      };
    },
  };
}
