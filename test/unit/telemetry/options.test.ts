import { describe, expect, it } from "vitest";
import { TaskClient } from "../../../src/index.js";
import { resolveTelemetryOptions } from "../../../src/telemetry/options.js";

describe("the telemetry option", () => {
  it("is off when absent or false, and true means the global providers with the defaults", () => {
    expect(resolveTelemetryOptions(undefined)).toBeUndefined();
    expect(resolveTelemetryOptions(false)).toBeUndefined();
    expect(resolveTelemetryOptions(true)).toEqual({
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
  });

  it.each([
    ["telemetry", "yes", "`telemetry` must be true, false or an object"],
    ["tracerProvider", { tracerProvider: {} }, "`telemetry.tracerProvider` must be a TracerProvider"],
    [
      "meterProvider",
      { meterProvider: { getMeter: 1 } },
      "`telemetry.meterProvider` must be a MeterProvider",
    ],
    ["pollSpans", { pollSpans: "some" }, '`telemetry.pollSpans` must be "all", "errors" or "none"'],
    ["taskIds", { taskIds: "hashed" }, '`telemetry.taskIds` must be "redacted" or "full"'],
    ["api", { api: { trace: {} } }, "`telemetry.api` must be the @opentelemetry/api module"],
  ])("refuses a bad %s before any connection is made", async (_, telemetry, message) => {
    expect(() => resolveTelemetryOptions(telemetry)).toThrow(message);
    // Connecting to nowhere: the option is checked first.
    await expect(TaskClient.connect("http://127.0.0.1:9/mcp", { telemetry } as never)).rejects.toThrow(
      message,
    );
  });
});
