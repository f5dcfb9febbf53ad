/**
 * Trace context for a request's `params._meta`. SEP-414 reserves the unprefixed keys `traceparent`, `tracestate`
 * and `baggage` for W3C Trace Context and Baggage there; the MCP semantic conventions say to write them with the
 * configured OpenTelemetry propagator. When the application registered one (`propagation.setGlobalPropagator`,
 * as the Node SDK does), it writes them; when none is registered the API's propagator writes nothing, so this
 * file writes the W3C keys itself, which is what a server reading `_meta` expects.
 */
import type * as Otel from "@opentelemetry/api";

export type OtelApi = typeof Otel;

/** The `_meta` entries that carry `context`, or undefined when it has no valid span (nothing to continue). */
export type MetaInjector = (context: Otel.Context) => Readonly<Record<string, string>> | undefined;

export function metaInjector(api: OtelApi): MetaInjector {
  // A registered propagator names the fields it writes; the API's no-op one names none.
  if (api.propagation.fields().length > 0) {
    return (context) => {
      const carrier: Record<string, string> = {};
      api.propagation.inject(context, carrier);
      return Object.keys(carrier).length > 0 ? carrier : undefined;
    };
  }
  return (context) => w3cMeta(api, context);
}

/** `traceparent` (version 00), `tracestate` and `baggage` as the W3C specifications write them. */
function w3cMeta(api: OtelApi, context: Otel.Context): Record<string, string> | undefined {
  const span = api.trace.getSpanContext(context);
  const meta: Record<string, string> = {};
  if (span !== undefined && api.isSpanContextValid(span)) {
    const flags = (span.traceFlags & 0xff).toString(16).padStart(2, "0");
    meta.traceparent = `00-${span.traceId}-${span.spanId}-${flags}`;
    const state = span.traceState?.serialize();
    if (state) meta.tracestate = state;
  }
  const baggage = api.propagation.getBaggage(context)?.getAllEntries() ?? [];
  if (baggage.length > 0) {
    // W3C Baggage: `key=value` list members, values percent-encoded; metadata (properties) kept as is.
    meta.baggage = baggage
      .map(([key, entry]) => {
        const member = `${encodeURIComponent(key)}=${encodeURIComponent(entry.value)}`;
        return entry.metadata === undefined ? member : `${member};${entry.metadata.toString()}`;
      })
      .join(",");
  }
  return Object.keys(meta).length > 0 ? meta : undefined;
}

/** The context a request's `_meta` continues (the receiving side of `metaInjector`). */
export type MetaExtractor = (meta: unknown) => Otel.Context;

export function metaExtractor(api: OtelApi): MetaExtractor {
  if (api.propagation.fields().length > 0) {
    return (meta) => (isRecord(meta) ? api.propagation.extract(api.ROOT_CONTEXT, meta) : api.ROOT_CONTEXT);
  }
  return (meta) => (isRecord(meta) ? fromW3cMeta(api, meta) : api.ROOT_CONTEXT);
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

function fromW3cMeta(api: OtelApi, meta: Record<string, unknown>): Otel.Context {
  let context = api.ROOT_CONTEXT;
  const parent = typeof meta.traceparent === "string" ? TRACEPARENT.exec(meta.traceparent.trim()) : null;
  if (parent !== null) {
    const [, traceId = "", spanId = "", flags = "00"] = parent;
    const span: Otel.SpanContext = { traceId, spanId, traceFlags: parseInt(flags, 16), isRemote: true };
    if (typeof meta.tracestate === "string" && meta.tracestate !== "") {
      span.traceState = api.createTraceState(meta.tracestate);
    }
    if (api.isSpanContextValid(span)) context = api.trace.setSpanContext(context, span);
  }
  if (typeof meta.baggage === "string" && meta.baggage !== "") {
    const entries: Record<string, Otel.BaggageEntry> = {};
    for (const member of meta.baggage.split(",")) {
      const [pair = "", ...properties] = member.split(";");
      const at = pair.indexOf("=");
      if (at <= 0) continue;
      const entry: Otel.BaggageEntry = { value: safeDecode(pair.slice(at + 1).trim()) };
      if (properties.length > 0) entry.metadata = api.baggageEntryMetadataFromString(properties.join(";"));
      entries[safeDecode(pair.slice(0, at).trim())] = entry;
    }
    context = api.propagation.setBaggage(context, api.propagation.createBaggage(entries));
  }
  return context;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
