/**
 * The reference server's own spans (`tracerProvider` option, `--otel`): one SERVER span per JSON-RPC request, a
 * child of the trace context the client put in `params._meta` (W3C `traceparent`, `tracestate`, `baggage`), so a
 * client with telemetry on and this server make one trace. Names and attributes follow the MCP semantic
 * conventions' server span (`{mcp.method.name} {target}`, `mcp.method.name`, `jsonrpc.request.id`,
 * `gen_ai.tool.name`, `mcp.protocol.version`, `mcp.session.id`, `network.transport`, `error.type`). A span ends
 * when the answer is written (over HTTP: when the response is finished, a listen's stream included).
 */
import type * as Otel from "@opentelemetry/api";
import { loadOtelApi } from "../telemetry/load-api.js";
import type { TracerProviderLike } from "../telemetry/options.js";
import { metaExtractor, type MetaExtractor, type OtelApi } from "../telemetry/propagation.js";
import { Attr, EXECUTE_TOOL } from "../telemetry/semconv.js";
import { PROTOCOL_VERSION_META_KEY } from "./constants.js";

/** How a request's answer went. */
export interface Answer {
  /** The JSON-RPC error code, when the answer was an error. */
  errorCode?: number;
  errorMessage?: string;
  /** The HTTP status of the response that carried it. */
  httpStatus?: number;
}

/** Ends the span of one request. */
export type EndSpan = (answer: Answer) => void;

/** Where a request arrived. */
export interface Arrival {
  transport: "http" | "stdio";
  /** HTTP request headers, lower-case names. */
  headers?: Readonly<Record<string, string>>;
  clientAddress?: string | undefined;
  clientPort?: number | undefined;
  /** The version negotiated by `initialize` (2025-11-25 over stdio: no header, no envelope says it). */
  protocolVersion?: string | undefined;
}

export class ServerTracing {
  private readonly extract: MetaExtractor;

  constructor(
    private readonly api: OtelApi,
    private readonly tracer: Otel.Tracer,
  ) {
    this.extract = metaExtractor(api);
  }

  /** Starts the span of a JSON-RPC request; undefined for a notification, a response or anything else. */
  start(message: unknown, arrival: Arrival): EndSpan | undefined {
    if (typeof message !== "object" || message === null) return undefined;
    const { method, id, params } = message as { method?: unknown; id?: unknown; params?: unknown };
    if (typeof method !== "string" || (typeof id !== "string" && typeof id !== "number")) return undefined;
    const body = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>;
    const meta = body._meta as Record<string, unknown> | undefined;
    const toolName = method === "tools/call" && typeof body.name === "string" ? body.name : undefined;
    const attributes: Otel.Attributes = {
      [Attr.mcpMethodName]: method,
      [Attr.jsonrpcRequestId]: String(id),
      [Attr.networkTransport]: arrival.transport === "http" ? "tcp" : "pipe",
    };
    if (arrival.transport === "http") attributes[Attr.networkProtocolName] = "http";
    if (toolName !== undefined) {
      attributes[Attr.genAiToolName] = toolName;
      attributes[Attr.genAiOperationName] = EXECUTE_TOOL;
    }
    const version =
      meta?.[PROTOCOL_VERSION_META_KEY] ??
      arrival.headers?.["mcp-protocol-version"] ??
      arrival.protocolVersion;
    if (typeof version === "string") attributes[Attr.mcpProtocolVersion] = version;
    const sessionId = arrival.headers?.["mcp-session-id"];
    if (sessionId !== undefined) attributes[Attr.mcpSessionId] = sessionId;
    if (arrival.clientAddress !== undefined) attributes[Attr.clientAddress] = arrival.clientAddress;
    if (arrival.clientPort !== undefined) attributes[Attr.clientPort] = arrival.clientPort;
    const name = toolName === undefined ? method : `${method} ${toolName}`;
    const span = this.tracer.startSpan(
      name,
      { kind: this.api.SpanKind.SERVER, attributes },
      this.extract(meta),
    );
    let ended = false;
    return (answer) => {
      if (ended) return;
      ended = true;
      const errorType =
        answer.errorCode !== undefined
          ? String(answer.errorCode)
          : answer.httpStatus !== undefined && answer.httpStatus >= 400
            ? String(answer.httpStatus)
            : undefined;
      if (errorType !== undefined) {
        span.setAttribute(Attr.errorType, errorType);
        if (answer.errorCode !== undefined) span.setAttribute(Attr.rpcResponseStatusCode, errorType);
        span.setStatus({
          code: this.api.SpanStatusCode.ERROR,
          ...(answer.errorMessage !== undefined && { message: answer.errorMessage }),
        });
      }
      span.end();
    };
  }
}

/** The server's tracing, or undefined without a `tracerProvider`. Loads `@opentelemetry/api` only then. */
export async function loadServerTracing(
  tracerProvider: TracerProviderLike | undefined,
): Promise<ServerTracing | undefined> {
  if (tracerProvider === undefined) return undefined;
  if (typeof (tracerProvider as { getTracer?: unknown }).getTracer !== "function") {
    throw new TypeError("startTaskServer: `tracerProvider` must be a TracerProvider (with getTracer)");
  }
  const api = await loadOtelApi("the reference server's `tracerProvider` option");
  const tracer = (tracerProvider as Otel.TracerProvider).getTracer("mcp-tasks/testing", "0.1.0");
  return new ServerTracing(api, tracer);
}

/** What a JSON-RPC answer says, for its request's span. */
export function answerOf(message: unknown): Answer {
  const error = (message as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (typeof error !== "object" || error === null) return {};
  return {
    ...(typeof error.code === "number" && { errorCode: error.code }),
    ...(typeof error.message === "string" && { errorMessage: error.message }),
  };
}

/**
 * Spans of one connection's requests, each ended as the message answering it (same id) goes out. Over stdio
 * that is the whole connection; over 2025-11-25 HTTP, one session (ids are only unique within one).
 */
export class SpansById {
  private readonly open = new Map<string | number, EndSpan>();
  private protocolVersion: string | undefined;

  constructor(private readonly tracing: ServerTracing | undefined) {}

  /** An incoming message; returns the span's end for a request, so the caller may end it another way. */
  received(message: unknown, arrival: Arrival = { transport: "stdio" }): EndSpan | undefined {
    if (this.tracing === undefined) return undefined;
    const { method, params } = (message ?? {}) as {
      method?: unknown;
      params?: { protocolVersion?: unknown };
    };
    if (method === "initialize" && typeof params?.protocolVersion === "string") {
      this.protocolVersion = params.protocolVersion;
    }
    const end = this.tracing.start(message, { protocolVersion: this.protocolVersion, ...arrival });
    if (end === undefined) return undefined;
    const id = (message as { id: string | number }).id;
    this.open.set(id, end);
    return (answer) => {
      if (this.open.get(id) === end) this.open.delete(id);
      end(answer);
    };
  }

  /** An outgoing message: the answer of an open request ends its span. */
  sent(message: unknown): void {
    if (this.open.size === 0 || typeof message !== "object" || message === null || "method" in message)
      return;
    const id = (message as { id?: unknown }).id;
    if (typeof id !== "string" && typeof id !== "number") return;
    const end = this.open.get(id);
    if (end === undefined) return;
    this.open.delete(id);
    end(answerOf(message));
  }

  /** A request that ends without an answer (a listen closed by `notifications/cancelled`). */
  ended(id: string | number): void {
    const end = this.open.get(id);
    this.open.delete(id);
    end?.({});
  }

  close(): void {
    for (const end of this.open.values()) end({});
    this.open.clear();
  }
}
