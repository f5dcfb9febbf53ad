/**
 * A 2025-11-25 task asks for input on the stream of a `tasks/result` the client keeps open (the side channel).
 * When the handle ends while that request is still open (detached here), the client aborts it: its HTTP stream
 * closes at once, and the server sees the client go instead of a stream held until the request's timeout. The
 * real client against the 2025-11-25 reference server, behind the fault proxy, which sees when the stream closes.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { TaskClient } from "mcp-tasks";
import { fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { startFaultProxy } from "../lifecycle/fault-proxy.js";
import { FAST, closesAfterEach } from "../lifecycle/helpers.js";

const track = closesAfterEach();

let reference: HttpTaskServer;
beforeAll(async () => {
  reference = await startTaskServer({ era: "2025-11-25", tools: fixtureTools({ timeScale: 0.01 }) });
});
afterAll(() => reference.close());

it("the tasks/result side channel closes as its handle ends, not at the request timeout", async () => {
  const proxy = track(await startFaultProxy(reference.url));
  let asked!: () => void;
  const question = new Promise<void>((resolve) => (asked = resolve));
  const client = track(
    await TaskClient.connect(proxy.url, {
      ...FAST,
      requestTimeoutMs: 60_000,
      inputHandlers: {
        // The user never answers: the side channel stays open until the handle lets it go.
        elicitation: (_params, { signal }) => {
          asked();
          return new Promise((_resolve, reject) =>
            signal.addEventListener("abort", () => reject(signal.reason)),
          );
        },
      },
    }),
  );
  const handle = client.callTool("confirm_delete", { filename: "notes.txt" });
  await question;
  const sideChannel = proxy.exchanges.find((exchange) => exchange.method === "tasks/result");
  expect(sideChannel?.end).toBeUndefined();
  handle.detach();
  // Far below the request timeout (60 s): the stream ends with the handle.
  await vi.waitFor(() => expect(sideChannel?.end).toBe("clientClosed"), { timeout: 5_000, interval: 20 });
  expect((await handle.outcome()).kind).toBe("detached");
});
