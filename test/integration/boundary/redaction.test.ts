/**
 * Task ids are bearer-like secrets: a server that quotes the id in its error text must not have it copied into
 * the messages of errors users see (`retry` event payloads, `handle.cancel()` rejections). A raw node:http
 * server on 127.0.0.1 gives exactly those error bytes; the real TaskClient talks to it over Streamable HTTP.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RpcError, TaskClient, type RetryEvent } from "mcp-tasks";

const SECRET = "task-0f3a9c7e-41d2-4b8a-secret-bearer";
const STAMP = "2026-08-01T10:00:00.000Z";
const TASK = { taskId: SECRET, createdAt: STAMP, lastUpdatedAt: STAMP, ttlMs: null, pollIntervalMs: 1 };

type Rpc = { id?: string | number; method: string; params?: Record<string, unknown> };

let httpServer: Server;
let url: string;
let getErrorsLeft = 0;
let cancelAsked = false;

function answer(request: Rpc): Record<string, unknown> {
  const ok = (result: Record<string, unknown>) => ({ jsonrpc: "2.0", id: request.id, result });
  const fail = (code: number, message: string) => ({
    jsonrpc: "2.0",
    id: request.id,
    error: { code, message },
  });
  switch (request.method) {
    case "server/discover":
      return ok({
        supportedVersions: ["2026-07-28"],
        capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
      });
    case "tools/call":
      return ok({ resultType: "task", ...TASK, status: "working" });
    case "tasks/get":
      if (getErrorsLeft > 0) {
        getErrorsLeft--;
        return fail(-32603, `Internal error while reading task ${SECRET}`);
      }
      return cancelAsked
        ? ok({ ...TASK, status: "completed", result: { content: [{ type: "text", text: "done" }] } })
        : ok({ ...TASK, status: "working" });
    case "tasks/cancel":
      cancelAsked = true;
      return fail(-32602, `Task ${SECRET} cannot be cancelled in its current state`);
    default:
      return fail(-32601, `Method not found: ${request.method}`);
  }
}

beforeAll(async () => {
  httpServer = createServer((req, res) => {
    if (req.method !== "POST") return void res.writeHead(405).end();
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const request = JSON.parse(body) as Rpc;
      if (request.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer(request)));
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await new Promise((resolve) => httpServer.close(resolve));
});

it("keeps the task id out of retry payloads and cancel rejections the server's text would put it in", async () => {
  getErrorsLeft = 2;
  const client = await TaskClient.connect(url, {
    retry: { retries: 4, minTimeoutMs: 1, maxTimeoutMs: 5, factor: 2 },
    polling: { minIntervalMs: 1, defaultIntervalMs: 1, maxIntervalMs: 5 },
  });
  try {
    const handle = client.callTool("job");
    const retries: RetryEvent[] = [];
    handle.on("retry", (event) => retries.push(event));
    // Two failed polls (retried), then "working": the task is there to cancel.
    await expect.poll(() => retries.length).toBe(2);
    await expect.poll(() => handle.taskId).toBe(SECRET);

    for (const { error } of retries) {
      expect(error).toBeInstanceOf(RpcError);
      expect((error as RpcError).message).not.toContain(SECRET);
      expect((error as RpcError).rpcMessage).not.toContain(SECRET);
      expect(String(error)).not.toContain(SECRET);
    }

    // cancel() never rejects: the server's refusal is the result's `error`.
    const { error: cancelled } = await handle.cancel();
    expect(cancelled).toBeInstanceOf(RpcError);
    expect((cancelled as RpcError).message).toMatch(/cannot be cancelled/);
    expect((cancelled as RpcError).message).not.toContain(SECRET);
    expect((cancelled as RpcError).rpcMessage).not.toContain(SECRET);

    // The id itself is still there for whoever needs it.
    expect(handle.taskId).toBe(SECRET);
    await expect(handle).resolves.toEqual({ content: [{ type: "text", text: "done" }] });
  } finally {
    await client.close();
  }
});
