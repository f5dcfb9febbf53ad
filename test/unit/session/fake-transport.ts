/**
 * An in-memory transport with the SDK Transport shape: records what the session sends and lets a test answer,
 * notify, fail or close by hand, or through an auto-responder.
 */
import type { McpTransport, OutgoingMessage, SendOptions } from "../../../src/session/types.js";

type Sent = OutgoingMessage & { id?: string | number; method?: string; params?: Record<string, unknown> };

export class FakeTransport implements McpTransport {
  readonly sent: Sent[] = [];
  readonly sendOptions: (SendOptions | undefined)[] = [];
  protocolVersion: string | undefined;
  started = false;
  closed = false;
  /** When set, `send()` rejects with this (once). */
  sendError: unknown;
  onmessage?: (message: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  constructor(
    /** Called for every sent message; may answer through `transport.deliver`. */
    private readonly responder?: (message: Sent, transport: FakeTransport) => void,
    readonly hasPerRequestStream?: boolean,
  ) {}

  async start(): Promise<void> {
    this.started = true;
  }

  async send(message: OutgoingMessage, options?: SendOptions): Promise<void> {
    this.sent.push(message as Sent);
    this.sendOptions.push(options);
    if (this.sendError !== undefined) {
      const error = this.sendError;
      this.sendError = undefined;
      throw error;
    }
    this.responder?.(message as Sent, this);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.onclose?.();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  deliver(message: unknown): void {
    this.onmessage?.(message);
  }

  answer(id: string | number | null | undefined, result: unknown): void {
    this.deliver({ jsonrpc: "2.0", id, result });
  }

  fail(id: string | number | null | undefined, code: number, message: string, data?: unknown): void {
    this.deliver({ jsonrpc: "2.0", id, error: { code, message, ...(data !== undefined && { data }) } });
  }

  /** The last request sent with this method. */
  last(method: string): Sent {
    const found = this.sent.filter((message) => message.method === method).at(-1);
    if (found === undefined) throw new Error(`no ${method} was sent`);
    return found;
  }
}

/** A fake that looks like the stdio transport (the session recognises it by `pid` and `stderr`). */
export class FakeStdioTransport extends FakeTransport {
  readonly pid = 4242;
  readonly stderr = null;
}

export const DISCOVER_RESULT = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {}, extensions: { "io.modelcontextprotocol/tasks": {} } },
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "fake", version: "9.9.9" } },
};

/** Answers `server/discover` like a modern server that offers the tasks extension. */
export function modernResponder(message: Sent, transport: FakeTransport): void {
  if (message.method === "server/discover")
    queueMicrotask(() => transport.answer(message.id, DISCOVER_RESULT));
}
