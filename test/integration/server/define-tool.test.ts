import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "../../../src/testing/index.js";
import {
  defineTool,
  startTaskServer,
  step,
  textResult,
  ToolDefinitionError,
} from "../../../src/testing/index.js";

const done = [step.complete(textResult("ok"))];

describe("defineTool and the step builders", () => {
  it("reject a malformed tool definition with a ToolDefinitionError that names the field", () => {
    const bad: [Partial<ToolDefinition>, RegExp][] = [
      [{ name: "has space", steps: done }, /name must be/],
      [{ name: "t", task: "sometimes" as never, steps: done }, /task must be/],
      [{ name: "t", steps: "complete" as never }, /steps must be/],
      [{ name: "t", advance: { everyMs: -1 }, steps: done }, /advance must be/],
      [{ name: "t", ttlMs: 1.5, steps: done }, /ttlMs must be/],
      [{ name: "t", onCancel: "maybe" as never, steps: done }, /onCancel must be/],
    ];
    for (const [definition, message] of bad) {
      expect(() => defineTool(definition as ToolDefinition)).toThrow(ToolDefinitionError);
      expect(() => defineTool(definition as ToolDefinition)).toThrow(message);
    }
  });

  it("reject malformed step arguments where the script is written", () => {
    expect(() => step.idle(0)).toThrow(ToolDefinitionError);
    expect(() => step.pollErrors(1.5)).toThrow(ToolDefinitionError);
    expect(() => step.fail({ code: 1.5, message: "x" })).toThrow(ToolDefinitionError);
  });

  it("refuse two tools with the same name", async () => {
    const tool = defineTool({ name: "twin", steps: done });
    await expect(startTaskServer({ tools: [tool, tool] })).rejects.toThrow(/two tools are named "twin"/);
  });

  it("accept a valid definition and fill nothing in behind the caller's back", () => {
    const tool = defineTool({ name: "fine", steps: done });
    expect(tool).toEqual({ name: "fine", steps: done });
    expect(Object.isFrozen(tool)).toBe(true);
  });
});
