/**
 * Ordering (spec "Task Status"), through the real client against the reference server over Streamable HTTP: a server whose
 * timestamps do not move (its clock is frozen, like a server stamping whole seconds) and whose listen stream
 * delivers a `working` notification after the `input_required` that followed it. Both carry the same
 * `lastUpdatedAt`. The stale `working` must not move the task backwards, abort the running input handler, or
 * make the client ask again: a handler runs once per key.
 */
import { afterEach, expect, it } from "vitest";
import { TaskClient, type TaskStatus } from "mcp-tasks";
import {
  acceptedContent,
  defineTool,
  elicitForm,
  startTaskServer,
  step,
  textResult,
  type Clock,
} from "mcp-tasks/testing";

const open: Array<{ close(): Promise<unknown> }> = [];

afterEach(async () => {
  for (const closable of open.splice(0).reverse()) await closable.close().catch(() => undefined);
});

/** Real timers, but every timestamp the server writes is the same instant (the moment this file loaded). */
const FROZEN_AT = Date.now();
const frozen: Clock = {
  now: () => FROZEN_AT,
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Idles 150 ms (so the listen is acknowledged first), then `working` and, 10 ms later, `input_required`: the
 * server's `reorder` holds each notification until the next one (up to 20 ms), so `working` arrives second.
 */
const asks = defineTool({
  name: "asks",
  task: "required",
  advance: { everyMs: 10 },
  pollIntervalMs: 20,
  steps: [
    step.idle(15),
    step.working("thinking"),
    step.input({ confirm: elicitForm("Ship it?", { ok: { type: "boolean" } }, ["ok"]) }),
    step.complete((call) => textResult(acceptedContent(call, "confirm")?.ok === true ? "shipped" : "held")),
  ],
});

it("a stale working snapshot with the input_required one's timestamp neither moves the task back nor asks again", async () => {
  const server = await startTaskServer({ tools: [asks], clock: frozen, listen: { reorder: true } });
  open.push(server);
  let asked = 0;
  let aborted = 0;
  const client = await TaskClient.connect(server.url, {
    // A short safety net: a client that went back to `working` sees input_required again within 300 ms.
    notificationSafetyNetMs: 300,
    inputHandlers: {
      elicitation: (_request, context) => {
        asked += 1;
        context.signal.addEventListener("abort", () => void (aborted += 1));
        // The user takes 150 ms to answer.
        return new Promise((resolve) =>
          setTimeout(() => resolve({ action: "accept", content: { ok: true } }), 150),
        );
      },
    },
  });
  open.push(client);
  const handle = client.callTool("asks");
  const statuses: TaskStatus[] = [];
  handle.on("update", (update) => {
    if (statuses.at(-1) !== update.status) statuses.push(update.status);
  });
  await expect(handle).resolves.toMatchObject({ content: [{ text: "shipped" }] });
  expect(asked).toBe(1);
  expect(aborted).toBe(0);
  // input_required is entered once: never input_required → working → input_required.
  expect(statuses.filter((status) => status === "input_required")).toHaveLength(1);
  expect(statuses.at(-1)).toBe("completed");
});
