/**
 * A Restate service process for the end-to-end tests:
 * `node --import tsx restate-service.ts <mcp-url> <port> <proxied-mcp-url>`. Serves `Tools`, whose handlers call
 * the MCP tools of the same names with `callToolInHandler` (journaled waits of 300 ms); `Held`, the same through a
 * proxy in front of the server that holds `tools/call` answers when the test says so; `Polled`, the alternative the library did not take (a durable sleep of the server's interval
 * and one journaled `tasks/get` per poll), to compare their journals; and `Reports`, examples/restate-service.ts. Prints `ready` once listening.
 */
import * as restate from "@restatedev/restate-sdk";
import { TaskClient, type CallToolResult } from "mcp-tasks";
import { callToolInHandler } from "mcp-tasks/restate";
import { reportsService } from "../../../examples/restate-service.js";

const [url, port, proxied] = process.argv.slice(2) as [string, string, string];
const polling = { defaultIntervalMs: 30, minIntervalMs: 10, jitter: 0 };
const client = await TaskClient.connect(url, { polling });
const heldClient = await TaskClient.connect(proxied, { polling });

const tools = restate.service({
  name: "Tools",
  handlers: {
    deploy: (ctx: restate.Context, args: Record<string, unknown>) =>
      callToolInHandler(ctx, client, "deploy", args, { sliceMs: 300 }),
    forever: (ctx: restate.Context) => callToolInHandler(ctx, client, "forever", {}, { sliceMs: 300 }),
    timed: (ctx: restate.Context) => callToolInHandler(ctx, client, "timed", {}, { sliceMs: 300 }),
    broken: (ctx: restate.Context) => callToolInHandler(ctx, client, "broken", {}, { sliceMs: 300 }),
  },
});

const held = restate.service({
  name: "Held",
  handlers: {
    forever: (ctx: restate.Context) => callToolInHandler(ctx, heldClient, "forever", {}, { sliceMs: 300 }),
  },
});

const polled = restate.service({
  name: "Polled",
  handlers: {
    timed: async (ctx: restate.Context): Promise<CallToolResult> => {
      const { ref } = await ctx.run("tools/call timed", async () => {
        const handle = client.callTool("timed", {});
        const created = (await handle.ref)!;
        handle.detach();
        return { ref: created };
      });
      for (;;) {
        const snapshot = await ctx.run("tasks/get", async () => {
          const handle = client.task(ref);
          const { snapshot } = await handle.describe();
          handle.detach();
          return snapshot;
        });
        if (snapshot.status === "completed")
          return (snapshot as unknown as { result: CallToolResult }).result;
        await ctx.sleep(snapshot.pollIntervalMs ?? 30);
      }
    },
  },
});

await restate.serve({ services: [tools, held, polled, reportsService(client)], port: Number(port) });
console.log("ready");
