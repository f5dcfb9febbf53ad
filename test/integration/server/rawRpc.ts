/**
 * A deliberately small raw JSON-RPC client for the server tests: plain `fetch` with the full
 * 2026-07-28 `_meta` envelope and the `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers,
 * so the tests see exactly what travels on the wire, with no client library in between.
 */

export const TASKS = "io.modelcontextprotocol/tasks";

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcReply {
  status: number;
  id: unknown;
  result?: Record<string, unknown>;
  error?: RpcError;
}

export interface PostOptions {
  /** Declare the tasks extension in the envelope (default true). */
  tasks?: boolean;
  /** Extra client capabilities besides the extension. */
  capabilities?: Record<string, unknown>;
  /** Header overrides; a `null` value removes the header. */
  headers?: Record<string, string | null>;
  id?: string | number;
}

let nextId = 1;

export function envelope(options: PostOptions = {}): Record<string, unknown> {
  const capabilities = {
    ...options.capabilities,
    ...(options.tasks !== false && { extensions: { [TASKS]: {} } }),
  };
  return {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw-rpc-test", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
}

/** The standard headers a 2026-07-28 client sends for this request. */
export function standardHeaders(method: string, params: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
  };
  const source = { "tools/call": "name", "prompts/get": "name", "resources/read": "uri" }[method];
  const name =
    source !== undefined ? params[source] : method.startsWith("tasks/") ? params["taskId"] : undefined;
  if (typeof name === "string") headers["mcp-name"] = name;
  return headers;
}

function headersFor(
  method: string,
  params: Record<string, unknown>,
  overrides: Record<string, string | null> = {},
) {
  const headers = standardHeaders(method, params);
  for (const [name, value] of Object.entries(overrides)) {
    if (value === null) delete headers[name.toLowerCase()];
    else headers[name.toLowerCase()] = value;
  }
  return headers;
}

/** POST one request and return the reply, whatever it is. */
export async function post(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: PostOptions = {},
): Promise<RpcReply> {
  const id = options.id ?? nextId++;
  const body = { jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope(options) } };
  const response = await fetch(url, {
    method: "POST",
    headers: headersFor(method, params, options.headers),
    body: JSON.stringify(body),
  });
  const reply = (await response.json()) as {
    id: unknown;
    result?: Record<string, unknown>;
    error?: RpcError;
  };
  return { status: response.status, ...reply };
}

/** POST one request and return its result; a JSON-RPC error fails the test with the error. */
export async function call(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: PostOptions = {},
) {
  const reply = await post(url, method, params, options);
  if (reply.error !== undefined || reply.result === undefined) {
    throw new Error(`${method} answered ${JSON.stringify(reply.error ?? reply)}`);
  }
  return reply.result;
}

/** POST one request that must fail, and return its JSON-RPC error and HTTP status. */
export async function callError(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: PostOptions = {},
) {
  const reply = await post(url, method, params, options);
  if (reply.error === undefined)
    throw new Error(`${method} unexpectedly answered ${JSON.stringify(reply.result)}`);
  return { ...reply.error, status: reply.status };
}

/** An open `subscriptions/listen` SSE stream. */
export interface ListenStream {
  status: number;
  /** The next JSON-RPC message on the stream (the acknowledgement comes first). */
  next(): Promise<Record<string, unknown>>;
  /** Messages already received but not yet taken with `next()`. */
  pending(): Record<string, unknown>[];
  close(): void;
}

/** Open `subscriptions/listen` for task notifications. */
export async function listen(
  url: string,
  taskIds: unknown,
  options: PostOptions & { filter?: Record<string, unknown> } = {},
): Promise<ListenStream | RpcReply> {
  const id = options.id ?? `listen-${nextId++}`;
  // `filter`: more of the SubscriptionFilter (`toolsListChanged`…); undefined `taskIds` leaves them out.
  const params = { notifications: { taskIds, ...options.filter } };
  const body = {
    jsonrpc: "2.0",
    id,
    method: "subscriptions/listen",
    params: { ...params, _meta: envelope(options) },
  };
  const abort = new AbortController();
  const response = await fetch(url, {
    method: "POST",
    headers: headersFor("subscriptions/listen", params, options.headers),
    body: JSON.stringify(body),
    signal: abort.signal,
  });
  if (!response.headers.get("content-type")?.includes("text/event-stream")) {
    return { status: response.status, ...((await response.json()) as object), id };
  }
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const queue: Record<string, unknown>[] = [];
  let buffer = "";
  const next = async (): Promise<Record<string, unknown>> => {
    for (;;) {
      const queued = queue.shift();
      if (queued !== undefined) return queued;
      const { done, value } = await reader.read();
      if (done) throw new Error("the listen stream ended");
      buffer += decoder.decode(value, { stream: true });
      const frames = buffer.split("\n\n");
      buffer = frames.pop() ?? "";
      for (const frame of frames) {
        const data = frame
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trim())
          .join("");
        if (data !== "") queue.push(JSON.parse(data) as Record<string, unknown>);
      }
    }
  };
  return { status: response.status, next, pending: () => [...queue], close: () => abort.abort() };
}

export function isStream(value: ListenStream | RpcReply): value is ListenStream {
  return "next" in value;
}
