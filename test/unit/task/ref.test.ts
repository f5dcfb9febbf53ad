import { describe, expect, it } from "vitest";
import { TaskRefError, readTaskRef } from "../../../src/task/ref.js";

const ref = {
  v: 1,
  taskId: "t-1",
  server: { url: "https://tools.example/mcp", name: "tools", version: "2", protocolVersion: "2026-07-28" },
  method: "tools/call",
  toolName: "report",
  createdAt: "2026-01-01T00:00:00Z",
  ttlMs: null,
  answeredInputKeys: ["a"],
  era: "modern",
  pendingInputAnswers: { b: { action: "accept", content: { ok: true } } },
};

describe("readTaskRef", () => {
  it("keeps every TaskRef field as given", () => {
    expect(readTaskRef(JSON.parse(JSON.stringify(ref)))).toEqual(ref);
  });

  it("drops fields a TaskRef does not have, at the top and in `server`", () => {
    const read = readTaskRef({
      ...ref,
      cli: { command: ["sh", "-c", "touch /tmp/pwned"] },
      server: { ...ref.server, headers: { authorization: "Bearer x" } },
      extra: 1,
    });
    expect(read).toEqual(ref);
    expect(Object.keys(read)).not.toContain("cli");
    expect(Object.keys(read.server)).not.toContain("headers");
  });

  it("keeps a `__proto__` key of pendingInputAnswers as a key, never as the prototype", () => {
    const read = readTaskRef(
      JSON.parse(
        '{"v":1,"taskId":"t","server":{"protocolVersion":"p"},"method":"m","toolName":"x","pendingInputAnswers":{"__proto__":{"polluted":true}}}',
      ),
    );
    expect(Object.getPrototypeOf(read.pendingInputAnswers)).toBe(Object.prototype);
    expect(Object.keys(read.pendingInputAnswers ?? {})).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it.each([
    [{ ...ref, v: 2 }, "unsupported task ref version 2"],
    [{ ...ref, taskId: "" }, "`taskId` must be a non-empty string"],
    [{ ...ref, server: null }, "`server` must be an object"],
    [{ ...ref, server: { ...ref.server, url: 5 } }, "`server.url` must be a string"],
    [{ ...ref, server: { url: "https://x/mcp" } }, "`server.protocolVersion` must be a string"],
    [{ ...ref, toolName: 3 }, "`toolName` must be a string"],
    [{ ...ref, ttlMs: "1h" }, "`ttlMs` must be a number or null"],
    [{ ...ref, answeredInputKeys: "a" }, "`answeredInputKeys` must be an array of strings"],
    [{ ...ref, pendingInputAnswers: [] }, "`pendingInputAnswers` must be an object"],
  ])("refuses a malformed ref, naming the field (%#)", (value, problem) => {
    expect(() => readTaskRef(value)).toThrow(TaskRefError);
    expect(() => readTaskRef(value)).toThrow(problem);
  });
});
