/**
 * What the engine tests share: the reference server's scripted tools they call, counts of the requests it
 * received, by tool and by task, and a proxy rule that holds the server's answer to a call it already served.
 */
import { defineTool, step, textResult, type HttpTaskServer, type ToolDefinition } from "mcp-tasks/testing";
import type { FaultRule } from "../lifecycle/fault-proxy.js";

/**
 * `deploy` (two status messages, `idle` polls apart, then a result naming its arguments), `forever` (never ends
 * until cancelled) and `broken` (fails with JSON-RPC error -32000 "disk full"). Poll-advanced, 30 ms apart.
 */
export function engineTools(idle: number): ToolDefinition[] {
  return [
    defineTool({
      name: "deploy",
      task: "required",
      pollIntervalMs: 30,
      steps: [
        step.working("starting"),
        step.idle(idle),
        step.working("half way"),
        step.idle(idle),
        step.complete((call) => textResult(`deployed ${JSON.stringify(call.arguments)}`)),
      ],
    }),
    defineTool({ name: "forever", task: "required", pollIntervalMs: 30, steps: [step.stall()] }),
    defineTool({
      name: "broken",
      task: "required",
      pollIntervalMs: 30,
      steps: [step.working(), step.fail({ code: -32000, message: "disk full", data: { free: 0 } })],
    }),
  ];
}

/** The `tools/call` requests the server received for `tool`. */
export function callsOf(server: HttpTaskServer, tool: string): number {
  return server.requests
    .forMethod("tools/call")
    .filter((request) => (request.body as { params: { name: string } }).params.name === tool).length;
}

/** The `tasks/cancel` requests the server received for `taskId`. */
export function cancelsOf(server: HttpTaskServer, taskId: string): number {
  return server.requests
    .forMethod("tasks/cancel")
    .filter((request) => (request.body as { params: { taskId: string } }).params.taskId === taskId).length;
}

/**
 * A fault-proxy rule: forwards the request to `upstream` at once (so the server creates the task), and writes the
 * server's answer back to the client only once `released` resolves (never, if it never does).
 */
export function heldAnswer(upstream: string, released: Promise<void>): FaultRule {
  return {
    respond(res, request) {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string" && !["host", "connection", "content-length"].includes(name))
          headers[name] = value;
      }
      void (async () => {
        const answer = await fetch(upstream, {
          method: "POST",
          headers,
          body: JSON.stringify(request.message),
        });
        const text = await answer.text();
        await released;
        if (res.destroyed) return;
        res.writeHead(answer.status, {
          "content-type": answer.headers.get("content-type") ?? "application/json",
        });
        res.end(text);
      })().catch(() => res.destroy()); // the server went away: the client sees a broken answer
    },
  };
}
