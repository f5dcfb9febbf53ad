import { describe, expect, it } from "vitest";
import { TaskClient } from "../../../src/index.js";
import { telemetry } from "../../../src/telemetry/index.js";
import { resolveTelemetryOptions } from "../../../src/telemetry/options.js";

describe("the telemetry option", () => {
  it("telemetry() alone means the global providers with the defaults", () => {
    expect(resolveTelemetryOptions()).toEqual({
      api: undefined,
      tracerProvider: undefined,
      meterProvider: undefined,
      pollSpans: "errors",
      fullTaskIds: false,
    });
    expect(resolveTelemetryOptions({ pollSpans: "all", taskIds: "full" })).toMatchObject({
      pollSpans: "all",
      fullTaskIds: true,
    });
    expect(telemetry().kind).toBe("opentelemetry");
  });

  it.each([
    ["options", "yes", "the options must be an object"],
    ["tracerProvider", { tracerProvider: {} }, "`tracerProvider` must be a TracerProvider"],
    ["meterProvider", { meterProvider: { getMeter: 1 } }, "`meterProvider` must be a MeterProvider"],
    ["pollSpans", { pollSpans: "some" }, '`pollSpans` must be "all", "errors" or "none"'],
    ["taskIds", { taskIds: "hashed" }, '`taskIds` must be "redacted" or "full"'],
    ["api", { api: { trace: {} } }, "`api` must be the @opentelemetry/api module"],
  ])("telemetry() refuses a bad %s where it is written", (_, options, message) => {
    expect(() => telemetry(options as never)).toThrow(`telemetry(): ${message}`);
  });

  it.each([
    ["true", true],
    ["an options object", { pollSpans: "all" }],
    ["a string", "yes"],
  ])(
    "connect refuses telemetry given as %s, naming mcp-tasks/telemetry, before any connection",
    async (_, value) => {
      // Connecting to nowhere: the option is checked first.
      const failure = await TaskClient.connect("http://127.0.0.1:9/mcp", { telemetry: value } as never).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(TypeError);
      expect((failure as Error).message).toContain(
        "`telemetry` must be `telemetry()` of mcp-tasks/telemetry",
      );
    },
  );
});
