/**
 * The node:http side of the HTTP server: reading a bounded body, flattening headers, turning an
 * `IncomingMessage` into a web `Request` for the SDK, and writing a web `Response` (or a JSON-RPC
 * message, or SSE frames) back.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { polishOutgoing } from "./wire-polish.js";

/** The largest request body read; the SDK's own default bound. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Headers as one string per lower-case name. */
export function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

/** The body as text, or `undefined` when it is larger than {@link MAX_BODY_BYTES}. */
export async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Parsed JSON, or the text itself when it is not JSON (the request log keeps what arrived). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A web `Request` for the SDK handler; hop-by-hop headers stay behind. */
export function toWebRequest(
  req: IncomingMessage,
  url: URL,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Request {
  const forwarded = new Headers(headers);
  for (const name of ["connection", "content-length", "transfer-encoding", "keep-alive"])
    forwarded.delete(name);
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, {
    method: req.method,
    headers: forwarded,
    body: hasBody ? body : undefined,
    signal,
  });
}

export function writeJson(res: ServerResponse, status: number, message: unknown): void {
  const text = JSON.stringify(message);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** A JSON-RPC error response without a readable request id. */
export function writeRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  writeJson(res, status, { jsonrpc: "2.0", id: null, error: { code, message } });
}

/** One SSE frame carrying a JSON-RPC message. */
export function sseFrame(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * Write the SDK's response; JSON bodies pass through {@link polishOutgoing}, streams are piped. Resolves with the
 * JSON message written, if the body was one (a request's span reads its error).
 */
export async function writeWebResponse(response: Response, res: ServerResponse): Promise<unknown> {
  const headers = Object.fromEntries(response.headers.entries());
  if (response.body === null) {
    res.writeHead(response.status, headers).end();
    return undefined;
  }
  if (headers["content-type"]?.includes("application/json")) {
    const message = polishOutgoing(parseJson(await response.text()));
    const text = JSON.stringify(message);
    res
      .writeHead(response.status, { ...headers, "content-length": String(Buffer.byteLength(text)) })
      .end(text);
    return message;
  }
  res.writeHead(response.status, headers);
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
  return undefined;
}
