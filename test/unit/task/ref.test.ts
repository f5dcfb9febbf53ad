import { describe, expect, it } from "vitest";
import {
  TaskRefError,
  readTaskRef,
  serverIdentity,
  storedRefOf,
  type TaskRef,
} from "../../../src/task/ref.js";
import { memoryStore } from "../../../src/store/memory.js";

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

describe("which stored refs are a server's (storedRefOf)", () => {
  const of = (server: TaskRef["server"]): TaskRef => ({ ...readTaskRef(ref), server });
  const V = "2026-07-28";

  it("matches by URL when the connection has one, and never a ref without that URL", () => {
    const here = { url: "https://tools.example/mcp", name: "tools", protocolVersion: V };
    expect(storedRefOf(of({ url: "https://TOOLS.example:443/mcp", protocolVersion: V }), here)).toBe(true);
    expect(
      storedRefOf(of({ url: "https://other.example/mcp", name: "tools", protocolVersion: V }), here),
    ).toBe(false);
    expect(storedRefOf(of({ name: "tools", protocolVersion: V }), here)).toBe(false);
    expect(storedRefOf(of({ protocolVersion: V }), here)).toBe(false);
  });

  it("matches by serverInfo name without a URL, and never a ref with a URL or without a name", () => {
    const here = { name: "tools", version: "3", protocolVersion: V };
    expect(storedRefOf(of({ name: "tools", version: "2", protocolVersion: V }), here)).toBe(true);
    expect(
      storedRefOf(of({ url: "https://tools.example/mcp", name: "tools", protocolVersion: V }), here),
    ).toBe(false);
    expect(storedRefOf(of({ name: "other", protocolVersion: V }), here)).toBe(false);
    expect(storedRefOf(of({ protocolVersion: V }), here)).toBe(false);
  });

  it("matches nothing on a connection without URL or serverInfo name (an empty name is none)", () => {
    for (const here of [{ protocolVersion: V }, { name: "", protocolVersion: V }]) {
      expect(serverIdentity(here)).toBeUndefined();
      expect(storedRefOf(of({ protocolVersion: V }), here)).toBe(false);
      expect(storedRefOf(of({ name: "", protocolVersion: V }), here)).toBe(false);
      expect(storedRefOf(of({ name: "tools", protocolVersion: V }), here)).toBe(false);
    }
  });

  it("is what memoryStore().list(server) hands out", async () => {
    const store = memoryStore();
    await store.put({ ...of({ protocolVersion: V }), taskId: "anonymous" });
    await store.put({ ...of({ name: "tools", protocolVersion: V }), taskId: "named" });
    expect(await store.list({ protocolVersion: V })).toEqual([]);
    expect((await store.list({ name: "tools", protocolVersion: V })).map((r) => r.taskId)).toEqual(["named"]);
    expect(await store.list()).toHaveLength(2);
  });
});
