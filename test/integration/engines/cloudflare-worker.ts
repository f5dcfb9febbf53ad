/**
 * The Durable Object the workerd test runs: an agent that calls tools through `durableTasks` and writes every
 * event it hears into its own storage, so the test can read them after workerd was killed and restarted.
 * `MCP_URL` (a text binding) is the reference server, or a closed port to keep the object offline.
 */
import { TaskClient } from "mcp-tasks";
import { durableTasks, type DurableTaskEvent, type DurableTasks } from "mcp-tasks/cloudflare";
import type { DurableObjectNamespace, DurableObjectState } from "@cloudflare/workers-types";

interface Env {
  MCP_URL: string;
  AGENT: DurableObjectNamespace;
}

/** The object's stub, with the fetch of this file's (Node-typed) `Request` and `Response`. */
type Stub = { fetch(request: Request): Promise<Response> };

export class Agent {
  private readonly tasks: DurableTasks;

  constructor(
    private readonly ctx: DurableObjectState,
    env: Env,
  ) {
    this.tasks = durableTasks(ctx, {
      connect: (store) => TaskClient.connect(env.MCP_URL, { store, notifications: "off" }),
      onEvent: (event) => this.remember(event),
      minPollMs: 100,
      maxPollMs: 1000,
    });
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const taskId = url.searchParams.get("taskId") ?? "";
    switch (url.pathname) {
      case "/call":
        return Response.json(await this.tasks.callTool(url.searchParams.get("tool") ?? "", {}));
      case "/cancel":
        return Response.json(await this.tasks.cancel(taskId));
      case "/respond":
        return Response.json(
          await this.tasks.respond(taskId, url.searchParams.get("key") ?? "", await request.json()),
        );
      case "/tasks":
        return Response.json(await this.tasks.list());
      case "/alarm":
        return Response.json(await this.ctx.storage.getAlarm());
      case "/events":
        return Response.json((await this.ctx.storage.get("events")) ?? []);
      default:
        return new Response("not found", { status: 404 });
    }
  }

  async alarm(): Promise<void> {
    await this.tasks.alarm();
  }

  private async remember(event: DurableTaskEvent): Promise<void> {
    const events = (await this.ctx.storage.get<unknown[]>("events")) ?? [];
    const entry: Record<string, unknown> = { type: event.type, taskId: event.taskId };
    if (event.type === "settled") {
      entry.kind = event.outcome.kind;
      if (event.outcome.kind === "completed") {
        entry.text = (event.outcome.result.content[0] as { text?: string } | undefined)?.text;
      }
    }
    if (event.type === "status") entry.status = event.status;
    if (event.type === "input") Object.assign(entry, { key: event.key, kind: event.kind });
    if (event.type === "error") entry.error = String(event.error);
    await this.ctx.storage.put("events", [...events, entry]);
  }
}

export default {
  fetch(request: Request, env: Env): Response | Promise<Response> {
    if (new URL(request.url).pathname === "/__ready") return new Response(null, { status: 204 });
    return (env.AGENT.get(env.AGENT.idFromName("agent")) as unknown as Stub).fetch(request);
  },
};
