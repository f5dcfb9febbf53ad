/**
 * A proxy on 127.0.0.1 in front of the reference server that gives its tasks hostile ids: every `"taskId"` the
 * server sends reaches the client with `HOSTILE_SUFFIX` appended (shell punctuation, an OSC 52 sequence that
 * would write "pwned" to the clipboard, a right-to-left override), and the proxy takes the suffix off again on
 * the way back, so the server still knows its tasks. Responses are rewritten line by line, so event streams
 * keep streaming.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export const HOSTILE_SUFFIX = ";id\u001b]52;c;cHduZWQ=\u0007\u202e";
/** The suffix as it appears inside a JSON string (how the client and the proxy write it). */
const SUFFIX_IN_JSON = JSON.stringify(HOSTILE_SUFFIX).slice(1, -1);
const TASK_ID = /"taskId":"([^"\\]+)"/g;
const HOP_BY_HOP = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"]);

export interface HostileIdProxy {
  url: string;
  close(): Promise<void>;
}

export async function hostileIdProxy(upstream: string): Promise<HostileIdProxy> {
  const target = new URL(upstream);
  const server = createServer((req, res) => {
    forward(req, res, target).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function forward(req: IncomingMessage, res: ServerResponse, target: URL): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString("utf8").replaceAll(SUFFIX_IN_JSON, "");
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (!HOP_BY_HOP.has(name) && typeof value === "string") headers.set(name, value);
  }
  const taskId = taskIdOf(body);
  if (taskId !== undefined) headers.set("mcp-name", taskId); // the client sent the hostile id, base64-encoded
  const answer = await fetch(new URL(req.url ?? "/", target), {
    method: req.method,
    headers,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
  });
  const out: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name) && name !== "content-encoding") out[name] = value;
  });
  res.writeHead(answer.status, out);
  const decoder = new TextDecoder();
  let pending = "";
  const reader = answer.body?.getReader();
  for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read()) {
    pending += decoder.decode(read.value, { stream: true });
    const end = pending.lastIndexOf("\n");
    if (end === -1) continue;
    res.write(hostile(pending.slice(0, end + 1)));
    pending = pending.slice(end + 1);
  }
  res.end(hostile(pending + decoder.decode()));
}

function hostile(text: string): string {
  return text.replace(TASK_ID, (_match, id: string) => `"taskId":"${id}${SUFFIX_IN_JSON}"`);
}

function taskIdOf(body: string): string | undefined {
  try {
    const message = JSON.parse(body) as { params?: { taskId?: unknown } };
    return typeof message.params?.taskId === "string" ? message.params.taskId : undefined;
  } catch {
    return undefined;
  }
}
