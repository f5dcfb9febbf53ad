/**
 * Requests the server sends to the client (a JSON-RPC request arriving on any stream: a request's SSE stream, the
 * standalone GET stream, stdio). Each is answered exactly once, with the id it came with: `ping` here, everything
 * else by the handler above the session, and -32601 for what nobody serves. A request the server cancels
 * (`notifications/cancelled` naming its id) aborts the handler's signal and is not answered at all (the core
 * protocol says the receiver should not answer a cancelled request); so is anything still open when the session ends.
 *
 * Open requests are bounded (decision 17: a server may send hundreds at once): past `maxOpen` a request is
 * refused at once with -32000, without reaching the handler; past `maxOpen` refusals still being sent, it is
 * dropped unanswered. Either way nothing queues without end. A request whose params nest deeper than
 * `MAX_JSON_DEPTH` is refused the same way, with -32602, before any handler walks them.
 */
import { ErrorCode } from "../protocol/constants.js";
import { MAX_JSON_DEPTH, nestedDeeperThan, tooDeep } from "../protocol/depth.js";
import type { OutgoingMessage } from "./types.js";

/** A request from the server, as the handler sees it. */
export interface IncomingRequest {
  /** The JSON-RPC id the server chose. */
  id: string | number;
  method: string;
  /** The params as sent (an empty object when there were none). */
  params: Record<string, unknown>;
  /** Aborted when the server cancels this request or the session ends: the answer is no longer wanted. */
  signal: AbortSignal;
}

/** A JSON-RPC error answer. */
export interface IncomingError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * How to answer: a result or an error. `sent` is told whether the answer reached the transport (`undefined`) or
 * why it did not (a send failure, or the request was cancelled or the session closed first).
 */
export type IncomingAnswer = ({ result: Record<string, unknown> } | { error: IncomingError }) & {
  sent?(failure: unknown): void;
};

/**
 * Serves one request. `undefined` means "not a method this client serves" (answered -32601). A handler that
 * throws gets -32603 (its message is not sent: it may carry app details).
 */
export type IncomingHandler = (
  request: IncomingRequest,
) => Promise<IncomingAnswer | undefined> | IncomingAnswer | undefined;

/** Whether a server request is this session's to answer (the others belong to whoever shares the connection). */
export type RequestClaim = (method: string, params: Record<string, unknown>) => boolean;

/** The method every MCP peer must answer, with an empty result. */
const PING = "ping";

/** Default of `maxOpen`. */
export const DEFAULT_MAX_SERVER_REQUESTS = 64;

export class IncomingRequests {
  private handler: IncomingHandler | undefined;
  /** Requests being served, by id (typed, so the number 1 and the string "1" stay apart). */
  private readonly open = new Map<string, AbortController>();
  private closed = false;
  /** Refusals on their way out. */
  private refusing = 0;
  /** Requests the server cancelled whose handler has not returned yet: still work in progress, still counted. */
  private lingering = 0;
  /** The bound was hit and the logger told; cleared once a request is accepted again. */
  private flooded = false;

  constructor(
    private readonly send: (message: OutgoingMessage) => Promise<void>,
    private readonly report: (error: unknown) => void,
    private readonly maxOpen: number = DEFAULT_MAX_SERVER_REQUESTS,
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  /** Sets the one handler for server requests (a later call replaces it). */
  serve(handler: IncomingHandler): void {
    this.handler = handler;
  }

  /** Takes a request frame. A second frame with the id of a request still being served is a repeat: ignored. */
  receive(id: unknown, method: string, params: unknown): void {
    if (this.closed) return;
    if (typeof id !== "string" && typeof id !== "number") return; // not a request anyone can answer
    const slot = slotOf(id);
    if (this.open.has(slot)) return;
    if (this.open.size + this.lingering >= this.maxOpen) {
      this.tooMany(id);
      return;
    }
    if (nestedDeeperThan(params, MAX_JSON_DEPTH)) {
      this.refuse(id, { code: ErrorCode.invalidParams, message: `Invalid params: ${tooDeep()}` });
      return;
    }
    this.flooded = false;
    const controller = new AbortController();
    this.open.set(slot, controller);
    const request: IncomingRequest = { id, method, params: paramsOf(params), signal: controller.signal };
    void this.answer(request, slot, controller);
  }

  /** Refuses a request past the bound with -32000, telling the logger once per flood. */
  private tooMany(id: string | number): void {
    if (!this.flooded) {
      this.flooded = true;
      this.warn(
        `the server has ${this.maxOpen} requests open (maxServerRequests); more are refused with ` +
          `${ErrorCode.tooManyRequests} until some are answered`,
      );
    }
    this.refuse(id, {
      code: ErrorCode.tooManyRequests,
      message: `Too many requests: the client is answering ${this.maxOpen} of this server's requests already`,
    });
  }

  /** Answers at once with `error`, no handler involved; past `maxOpen` refusals in flight, drops the request. */
  private refuse(id: string | number, error: IncomingError): void {
    if (this.refusing >= this.maxOpen) return; // a flood: nobody is owed an answer to this many
    this.refusing++;
    this.send({ jsonrpc: "2.0", id, error }).then(
      () => this.refusing--,
      (failure: unknown) => {
        this.refusing--;
        this.report(failure);
      },
    );
  }

  /** `notifications/cancelled` from the server: stop serving that request and never answer it. */
  cancelled(params: Record<string, unknown>): void {
    const id = params.requestId;
    if (typeof id !== "string" && typeof id !== "number") return;
    const slot = slotOf(id);
    const controller = this.open.get(slot);
    if (controller === undefined) return;
    this.open.delete(slot);
    this.lingering++; // until its handler returns: a server cannot get past the bound by cancelling
    controller.abort(new Error("the server cancelled its request"));
  }

  /** The session ended: every request still being served is aborted, and its answer is dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.dropOpen();
  }

  /**
   * The connection dropped (it may be opened again): every request still being served is aborted and its answer
   * dropped, as the server that asked is gone; requests of the next connection are served.
   */
  dropOpen(): void {
    for (const controller of this.open.values()) controller.abort(new Error("the connection closed"));
    this.open.clear();
    this.lingering = 0;
  }

  private async answer(request: IncomingRequest, slot: string, controller: AbortController): Promise<void> {
    let answer: IncomingAnswer | undefined;
    try {
      answer = request.method === PING ? { result: {} } : await this.handler?.(request);
    } catch (error) {
      this.report(error);
      answer = { error: { code: ErrorCode.internalError, message: "Internal error" } };
    }
    answer ??= {
      error: { code: ErrorCode.methodNotFound, message: `Method not found: ${request.method}` },
    };
    // Cancelled by the server, or the session closed: the answer is dropped without a word.
    if (this.open.get(slot) !== controller) {
      if (!this.closed) this.lingering = Math.max(0, this.lingering - 1);
      answer.sent?.(controller.signal.reason ?? new Error("the request is no longer open"));
      return;
    }
    this.open.delete(slot);
    const { id } = request;
    const message: OutgoingMessage =
      "result" in answer
        ? { jsonrpc: "2.0", id, result: answer.result }
        : { jsonrpc: "2.0", id, error: answer.error };
    try {
      await this.send(message);
    } catch (error) {
      this.report(error);
      answer.sent?.(error);
      return;
    }
    answer.sent?.(undefined);
  }
}

function slotOf(id: string | number): string {
  return `${typeof id}:${id}`;
}

const NO_PARAMS: Record<string, unknown> = Object.freeze({});

/** A message's params as an object: absent or malformed params read as none. */
export function paramsOf(params: unknown): Record<string, unknown> {
  return typeof params === "object" && params !== null && !Array.isArray(params)
    ? (params as Record<string, unknown>)
    : NO_PARAMS;
}
