/**
 * Lets a mcp-tasks session ride on a connection an MCP SDK `Client` already drives, instead of opening a
 * second one. Answers to our requests (ids our session made) come to us and never reach the Client; every
 * notification goes to both; a server request goes to exactly one of the two, so it gets exactly one answer: to
 * us when it names a task one of our handles follows (`claimRequests`), otherwise to the Client, whose handlers
 * and declared capabilities it was sent under. Everything else stays the Client's. Closing it gives the
 * connection back.
 * Taps stack: a second `tasksFor()` on the same Client taps the first tap, and answers to the other session's
 * requests pass through to it, because each session owns its own id namespace (`claimResponses`).
 */
import { Session } from "../session/session.js";
import { paramsOf, type RequestClaim } from "../session/incoming.js";
import type { McpTransport, OutgoingMessage, SendOptions } from "../session/types.js";

type MessageHandler = NonNullable<McpTransport["onmessage"]>;

export class SharedTransport implements McpTransport {
  onmessage?: (message: unknown, extra?: unknown) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private clientHandler: MessageHandler | undefined;
  private tap: MessageHandler | undefined;
  /** Which response ids are our session's; until the session says, any id of this library's namespace. */
  private owns: (id: unknown) => boolean = (id) => Session.ownsId(id);
  /** Which server requests are ours to answer; none until the session says. */
  private claims: RequestClaim = () => false;
  /** What the inner transport had before the tap, to put back on close. */
  private restore: (() => void) | undefined;

  constructor(private readonly inner: McpTransport) {}

  get hasPerRequestStream(): boolean | undefined {
    return this.inner.hasPerRequestStream;
  }

  /** The Client's session (Streamable HTTP): refs of tasks made over it name it. It is never ended from here. */
  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  claimResponses(owns: (id: unknown) => boolean): void {
    this.owns = owns;
  }

  claimRequests(claims: RequestClaim): void {
    this.claims = claims;
  }

  /** The connection is already open: start only puts the tap in place. */
  async start(): Promise<void> {
    const inner = this.inner;
    this.clientHandler = inner.onmessage?.bind(inner);
    const { onmessage, onerror, onclose } = inner;
    const previousError = onerror?.bind(inner);
    const previousClose = onclose?.bind(inner);
    this.tap = (message, extra) => {
      const frame = message as { id?: unknown; method?: unknown; params?: unknown };
      const isResponse = frame.method === undefined;
      const isRequest = typeof frame.method === "string" && frame.id !== undefined && frame.id !== null;
      if (
        (isResponse && this.owns(frame.id)) ||
        (isRequest && this.claims(frame.method as string, paramsOf(frame.params)))
      ) {
        this.onmessage?.(message, extra);
        return;
      }
      if (frame.id === undefined && typeof frame.method === "string") this.onmessage?.(message, extra);
      this.clientHandler?.(message, extra);
    };
    const errorTap = (error: Error) => {
      previousError?.(error);
      this.onerror?.(error);
    };
    const closeTap = () => {
      previousClose?.();
      this.onclose?.();
    };
    inner.onmessage = this.tap;
    inner.onerror = errorTap;
    inner.onclose = closeTap;
    this.restore = () => {
      // Put back only what is still ours: the Client may have reconnected and installed new handlers.
      if (inner.onmessage === this.tap) inner.onmessage = onmessage;
      if (inner.onerror === errorTap) inner.onerror = onerror;
      if (inner.onclose === closeTap) inner.onclose = onclose;
    };
  }

  send(message: OutgoingMessage, options?: SendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  /** Removes the tap; the Client keeps its connection open. */
  async close(): Promise<void> {
    this.restore?.();
    this.restore = undefined;
  }
}
