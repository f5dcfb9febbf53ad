/**
 * The glue `@modelcontextprotocol/ext-tasks` asks its users to write for a 2026-07-28 tasks server: a
 * `ConnectedMcpSessionPort` over an MCP `Transport`. Its documented adapter for the SDK `Client` cannot send
 * task wire shapes without a host-supplied `rawDispatch` plus `v2RequestFraming`, so a host ends up writing
 * this much anyway: JSON-RPC ids and correlation, the per-request `_meta` envelope, discovery of the
 * extension, and the notification / server-request / invalidation hooks.
 *
 * Kept to what correctness needs and nothing more, so the comparison is fair: per message it assigns an id,
 * frames `_meta` once, sends, and resolves the waiting dispatch; an abort signal, when given, is honoured.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import {
  DispatchError,
  type ConnectedMcpSessionPort,
  type DispatchOptions,
  type IncomingServerRequest,
  type JsonRpcResponse,
  type SessionTaskCapabilities,
} from "@modelcontextprotocol/ext-tasks/client";
import type { JsonValue } from "@modelcontextprotocol/ext-tasks/core";

const PROTOCOL_VERSION = "2026-07-28";
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO = { name: "ext-tasks-bench-host", version: "1.0.0" };
const CLIENT_CAPABILITIES = { extensions: { [TASKS_EXTENSION]: {} } };

type Fields = Record<string, unknown>;
type ServerRequestHandler = (incoming: IncomingServerRequest) => Promise<JsonRpcResponse | undefined>;

export class TransportSessionPort implements ConnectedMcpSessionPort {
  taskCapabilities: SessionTaskCapabilities = { generation: "none" };
  private nextId = 0;
  private readonly pending = new Map<number, (response: JsonRpcResponse) => void>();
  private readonly serverRequestHandlers = new Set<ServerRequestHandler>();
  private readonly notificationListeners = new Set<(notification: JsonValue) => void>();
  private readonly invalidationListeners = new Set<(reason: unknown) => void>();
  private invalidation: Error | undefined;

  private constructor(
    private readonly transport: Transport,
    readonly endpointId: string,
  ) {
    transport.onmessage = (message) => this.receive(message as unknown as Fields);
    transport.onclose = () => this.invalidate(new Error("transport closed"));
  }

  /** Starts the transport and discovers whether the server speaks the tasks extension. */
  static async open(transport: Transport, endpointId: string): Promise<TransportSessionPort> {
    const port = new TransportSessionPort(transport, endpointId);
    await transport.start();
    const discovered = await port.dispatch({ method: "server/discover", params: {} });
    if (discovered.kind === "error") throw new Error(`server/discover failed: ${discovered.error.message}`);
    const extensions = (discovered.result as { capabilities?: { extensions?: Fields } }).capabilities
      ?.extensions;
    if (extensions?.[TASKS_EXTENSION] !== undefined)
      port.taskCapabilities = { generation: "v2", capabilities: {} };
    return port;
  }

  get invalidated(): boolean {
    return this.invalidation !== undefined;
  }

  dispatch(request: JsonValue, options?: DispatchOptions): Promise<JsonRpcResponse> {
    if (this.invalidation) return Promise.reject(new DispatchError(this.invalidation.message));
    const { method, params } = request as { method: string; params?: Fields };
    const id = ++this.nextId;
    const message = { jsonrpc: "2.0", id, method, params: withEnvelope(params ?? {}) } as JSONRPCMessage;
    const signal = options?.signal;
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.pending.delete(id);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, (response) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(response);
      });
      this.transport.send(message).catch((error: unknown) => {
        this.pending.delete(id);
        reject(new DispatchError("send failed", false, { cause: error }));
      });
    });
  }

  onServerRequest(handler: ServerRequestHandler): () => void {
    this.serverRequestHandlers.add(handler);
    return () => this.serverRequestHandlers.delete(handler);
  }

  onNotification(listener: (notification: JsonValue) => void): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  onInvalidated(listener: (reason: unknown) => void): () => void {
    this.invalidationListeners.add(listener);
    return () => this.invalidationListeners.delete(listener);
  }

  private receive(message: Fields): void {
    const { id, method } = message;
    if (method === undefined) {
      const settle = this.pending.get(id as number);
      if (!settle) return;
      this.pending.delete(id as number);
      settle(
        "error" in message
          ? { kind: "error", error: message.error as Extract<JsonRpcResponse, { kind: "error" }>["error"] }
          : { kind: "result", result: message.result as JsonValue },
      );
    } else if (id === undefined) {
      for (const listener of this.notificationListeners) listener(message as JsonValue);
    } else {
      void this.answerServerRequest(message);
    }
  }

  private async answerServerRequest(request: Fields): Promise<void> {
    let response: JsonRpcResponse | undefined;
    for (const handler of this.serverRequestHandlers) {
      response = await handler({ request: request as JsonValue, requestContext: undefined });
      if (response) break;
    }
    const body =
      response === undefined
        ? { error: { code: -32601, message: `Method not found: ${String(request.method)}` } }
        : response.kind === "result"
          ? { result: response.result }
          : { error: response.error };
    await this.transport.send({ jsonrpc: "2.0", id: request.id, ...body } as JSONRPCMessage);
  }

  private invalidate(reason: Error): void {
    if (this.invalidation) return;
    this.invalidation = reason;
    for (const settle of this.pending.values())
      settle({ kind: "error", error: { code: -32000, message: reason.message } });
    this.pending.clear();
    for (const listener of this.invalidationListeners) listener(reason);
  }
}

/** Adds the 2026-07-28 per-request envelope, keeping the capabilities ext-tasks already declared. */
function withEnvelope(params: Fields): Fields {
  const meta = (params._meta ?? {}) as Fields;
  return {
    ...params,
    _meta: {
      ...meta,
      [META_PROTOCOL_VERSION]: PROTOCOL_VERSION,
      [META_CLIENT_INFO]: CLIENT_INFO,
      [META_CLIENT_CAPABILITIES]: meta[META_CLIENT_CAPABILITIES] ?? CLIENT_CAPABILITIES,
    },
  };
}
