/**
 * One owner reports each failure. A failure a handle owns (a poll answered 503 and retried, a
 * 401 that ends the handle with `AuthError`) is the handle's to report; the client's `error` event and its
 * "transport error" warning are for faults no handle owns. Over HTTP both our transport and the SDK's (the OAuth
 * path) used to report every failed POST there as well. The real client against the reference server behind the
 * fault proxy, both generations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuthError, TaskClient, type TaskClientOptions } from "mcp-tasks";
import { oauth } from "mcp-tasks/oauth";
import { defineTool, startTaskServer, step, textResult, type HttpTaskServer } from "mcp-tasks/testing";
import { startFaultProxy } from "../lifecycle/fault-proxy.js";
import { closesAfterEach, FAST } from "../lifecycle/helpers.js";
import { tokenHolder } from "./fixtures/hostile.js";

const tools = [
  defineTool({
    name: "job",
    task: "required",
    pollIntervalMs: 20,
    advance: { everyMs: 20 },
    steps: [step.working("one"), step.working("two"), step.complete(textResult("done"))],
  }),
];

const servers: Record<"modern" | "legacy", HttpTaskServer> = {} as never;
beforeAll(async () => {
  servers.modern = await startTaskServer({ tools });
  servers.legacy = await startTaskServer({ tools, era: "2025-11-25" });
});
afterAll(async () => {
  await Promise.all([servers.modern.close(), servers.legacy.close()]);
});

const track = closesAfterEach();

/** A client through a fault proxy, with everything it reports as nobody's fault collected. */
async function watched(era: "modern" | "legacy", options: TaskClientOptions) {
  const proxy = track(await startFaultProxy(servers[era].url));
  const warnings: string[] = [];
  const client = track(
    await TaskClient.connect(proxy.url, {
      ...FAST,
      notifications: "off",
      logger: { warn: (message) => void warnings.push(message) },
      ...options,
    }),
  );
  const errors: unknown[] = [];
  client.on("error", (error) => errors.push(error));
  return { proxy, client, errors, warnings };
}

describe.each([
  ["2026-07-28", "modern"],
  ["2025-11-25", "legacy"],
] as const)("on a %s server", (_version, era) => {
  describe.each([
    ["our transport", {}],
    ["the OAuth path", { auth: oauth(tokenHolder()) }],
  ] as const)("through %s", (_path, options) => {
    it("a poll answered 503 and retried is the handle's: no error event, no transport warning", async () => {
      const { proxy, client, errors, warnings } = await watched(era, options);
      proxy.fault("tasks/get", { status: 503, body: "busy" }, 1);
      const retries: unknown[] = [];
      const handle = client.callTool("job");
      handle.on("retry", (event) => retries.push(event));
      await expect(handle).resolves.toMatchObject({ content: [{ text: "done" }] });
      expect(proxy.faulted.get("tasks/get")).toBe(1);
      expect(retries).toHaveLength(1); // the handle heard of it, once
      await new Promise((resolve) => setTimeout(resolve, 0)); // after the session lets out what it held back
      expect(errors).toEqual([]);
      expect(warnings.filter((message) => message.includes("transport error"))).toEqual([]);
    });
  });

  it("a poll refused 401 ends the handle with AuthError, and that is the only report", async () => {
    const { proxy, client, errors, warnings } = await watched(era, {});
    const handle = client.callTool("job");
    await handle.ref;
    proxy.fault("tasks/get", { status: 401, body: "no" });
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("error");
    expect((outcome as { error: unknown }).error).toBeInstanceOf(AuthError);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(errors).toEqual([]);
    expect(warnings.filter((message) => message.includes("transport error"))).toEqual([]);
  });
});
