/**
 * W3C trace context in `_meta`: written from a context, read back into one, and left to the application's own
 * propagator when it registered one.
 */
import * as api from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { metaExtractor, metaInjector } from "../../../src/telemetry/propagation.js";

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const SPAN_ID = "b7ad6b7169203331";

function contextWith(flags: number, traceState?: string): api.Context {
  return api.trace.setSpanContext(api.ROOT_CONTEXT, {
    traceId: TRACE_ID,
    spanId: SPAN_ID,
    traceFlags: flags,
    ...(traceState !== undefined && { traceState: api.createTraceState(traceState) }),
  });
}

afterEach(() => api.propagation.disable());

describe("without a registered propagator", () => {
  it("writes traceparent (version 00, the span's flags) and tracestate", () => {
    const inject = metaInjector(api);
    expect(inject(contextWith(1, "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"))).toEqual({
      traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`,
      tracestate: "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE",
    });
    expect(inject(contextWith(0))).toEqual({ traceparent: `00-${TRACE_ID}-${SPAN_ID}-00` });
  });

  it("writes baggage percent-encoded, and nothing at all for a context without a span or baggage", () => {
    const inject = metaInjector(api);
    const baggage = api.propagation.createBaggage({ user: { value: "alice smith" }, "a,b": { value: "1" } });
    expect(inject(api.propagation.setBaggage(api.ROOT_CONTEXT, baggage))).toEqual({
      baggage: "user=alice%20smith,a%2Cb=1",
    });
    expect(inject(api.ROOT_CONTEXT)).toBeUndefined();
  });

  it("reads back what it wrote, and ignores a malformed traceparent", () => {
    const extract = metaExtractor(api);
    const context = extract({
      traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`,
      tracestate: "rojo=00f067aa0ba902b7",
      baggage: "user=alice%20smith",
    });
    expect(api.trace.getSpanContext(context)).toMatchObject({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      traceFlags: 1,
      isRemote: true,
    });
    expect(api.trace.getSpanContext(context)?.traceState?.get("rojo")).toBe("00f067aa0ba902b7");
    expect(api.propagation.getBaggage(context)?.getEntry("user")?.value).toBe("alice smith");
    for (const traceparent of [
      "01-" + TRACE_ID + "-" + SPAN_ID + "-01",
      `00-${"0".repeat(32)}-${SPAN_ID}-01`,
      7,
    ]) {
      expect(api.trace.getSpanContext(extract({ traceparent }))).toBeUndefined();
    }
    expect(extract(undefined)).toBe(api.ROOT_CONTEXT);
  });
});

describe("with a registered propagator", () => {
  it("lets it write and read the keys (the conventions ask for the configured propagator)", () => {
    const fields = ["x-trace"];
    api.propagation.setGlobalPropagator({
      fields: () => fields,
      inject: (context, carrier, setter) =>
        setter.set(carrier, "x-trace", api.trace.getSpanContext(context)?.spanId ?? "none"),
      extract: (context, carrier, getter) =>
        api.trace.setSpanContext(context, {
          traceId: TRACE_ID,
          spanId: String(getter.get(carrier, "x-trace")),
          traceFlags: 1,
          isRemote: true,
        }),
    });
    expect(metaInjector(api)(contextWith(1))).toEqual({ "x-trace": SPAN_ID });
    const read = metaExtractor(api)({ "x-trace": "00f067aa0ba902b7" });
    expect(api.trace.getSpanContext(read)?.spanId).toBe("00f067aa0ba902b7");
  });
});
