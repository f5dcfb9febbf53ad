/**
 * One request as telemetry follows it, from framing to answer: its CLIENT span when it has one, and its
 * `mcp.client.operation.duration` (plus the poll count for a `tasks/get`). A poll without a span of its own
 * under `pollSpans: "errors"` gets one only when it fails, recorded then with the poll's start time. Polls are
 * the hot path, so a record is one object and nothing is computed for a poll that succeeds.
 */
import type * as Otel from "@opentelemetry/api";
import type { RequestWatch } from "../session/types.js";
import { requestError, type ErrorFacts } from "./errors.js";
import type { ClientInstruments } from "./metrics.js";
import type { OtelApi } from "./propagation.js";
import { Attr, TOOL_ERROR } from "./semconv.js";

/** What a record reports to. */
export interface RecordHost {
  readonly api: OtelApi;
  readonly instruments: ClientInstruments;
  /** Starts the span of a request that had none (a failed poll), with the request's start time. */
  lateSpan(
    record: RequestRecord,
    measured: Otel.Attributes,
    parent: Otel.Context,
    startTime: number,
  ): Otel.Span;
}

export class RequestRecord implements RequestWatch {
  private readonly startedAt = performance.now();

  constructor(
    private readonly host: RecordHost,
    readonly id: string,
    readonly method: string,
    readonly params: Record<string, unknown>,
    /** The HTTP session the request went in, if any. */
    readonly sessionId: string | undefined,
    /** The caller's signal: when it fired, a failure is the caller giving up. */
    private readonly signal: AbortSignal | undefined,
    readonly meta: Readonly<Record<string, string>> | undefined,
    /** The request's own span, or undefined. */
    private readonly span: Otel.Span | undefined,
    /** The duration metric's attributes when it succeeds. */
    private readonly measured: Otel.Attributes,
    /** A poll: the poll count's attributes when it succeeds. */
    private readonly polled: Otel.Attributes | undefined,
    /** Where a span made after a failure goes; undefined when none is made. */
    private readonly lateParent: Otel.Context | undefined,
  ) {}

  answered(result: Record<string, unknown>): void {
    // A tool that ran and reported an error answered well on the JSON-RPC level; the conventions still mark it.
    const toolError = this.method === "tools/call" && result.isError === true;
    this.finish(toolError ? { type: TOOL_ERROR, code: undefined, message: "" } : undefined);
  }

  failed(error: unknown): void {
    // The caller gave up on purpose (a listen closed because its tasks ended): an ending, not a failure.
    this.finish(this.signal?.aborted === true ? undefined : requestError(error));
  }

  private finish(error: ErrorFacts | undefined): void {
    const { api, instruments } = this.host;
    const seconds = (performance.now() - this.startedAt) / 1000;
    let measured = this.measured;
    let span = this.span;
    if (error !== undefined) {
      const marks: Otel.Attributes = { [Attr.errorType]: error.type };
      if (error.code !== undefined) marks[Attr.rpcResponseStatusCode] = error.code;
      measured = { ...measured, ...marks };
      if (span === undefined && this.lateParent !== undefined) {
        const startTime = performance.timeOrigin + this.startedAt;
        span = this.host.lateSpan(this, this.measured, this.lateParent, startTime);
      }
      span?.setAttributes(marks);
      span?.setStatus({
        code: api.SpanStatusCode.ERROR,
        ...(error.message !== "" && { message: error.message }),
      });
      if (this.polled !== undefined)
        instruments.polls.add(1, { ...this.polled, [Attr.errorType]: error.type });
    } else if (this.polled !== undefined) {
      instruments.polls.add(1, this.polled);
    }
    span?.end();
    instruments.operationDuration.record(seconds, measured);
  }
}
