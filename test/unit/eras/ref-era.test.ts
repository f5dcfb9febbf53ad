import { describe, expect, it } from "vitest";
import { TaskRefError, readTaskRef } from "../../../src/task/ref.js";

const ref = {
  v: 1,
  taskId: "t",
  server: { protocolVersion: "2025-11-25" },
  method: "tools/call",
  toolName: "x",
  answeredInputKeys: [],
};

describe("the era on a TaskRef", () => {
  it("reads refs written before the era was recorded (a missing era means modern)", () => {
    expect(readTaskRef(ref).era).toBeUndefined();
  });

  it("keeps a recorded era and refuses one it does not know", () => {
    expect(readTaskRef({ ...ref, era: "legacy" }).era).toBe("legacy");
    expect(() => readTaskRef({ ...ref, era: "2024" })).toThrow(TaskRefError);
  });
});
