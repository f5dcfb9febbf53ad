/**
 * Drives mcp-tasks: `TaskClient.connect(transport)`, then `callTool` returns a handle that is awaited.
 * For the smallest interval it allows, the client is told `polling: { minIntervalMs: 1, jitter: 0 }`;
 * otherwise it runs with its defaults.
 */
import { TaskClient } from "../../src/index.js";
import { BENCH_TOOL } from "../fake-server.js";
import { countdown, type LibraryDriver } from "./types.js";

export const oursDriver: LibraryDriver = {
  name: "ours",
  smallestIntervalMs: 1,
  async connect(transport, { smallestInterval }) {
    const client = await TaskClient.connect(
      transport,
      smallestInterval ? { polling: { minIntervalMs: 1, jitter: 0 } } : {},
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
