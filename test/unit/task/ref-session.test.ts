/**
 * `TaskRef.session` as `readTaskRef` reads it: the two fields a later request needs, both fit to travel as header
 * values, and nothing else; refs without it (older versions, 2026-07-28 tasks) read as they are.
 */
import { describe, expect, it } from "vitest";
import { TaskRefError, readTaskRef } from "../../../src/task/ref.js";

const ref = {
  v: 1,
  taskId: "t",
  server: { url: "http://127.0.0.1:9/mcp", protocolVersion: "2025-11-25" },
  method: "tools/call",
  toolName: "x",
  answeredInputKeys: [],
  era: "legacy",
};
const session = { id: "0b7e6a52-31f4-4d0c-8a3e-9c1f2b5d7e60", protocolVersion: "2025-11-25" };

describe("the session on a TaskRef", () => {
  it("reads a ref with a session, keeping only its id and protocol version", () => {
    const read = readTaskRef({ ...ref, session: { ...session, cookie: "x" } });
    expect(read.session).toEqual(session);
  });

  it("reads a ref without one (written by an older version) without one", () => {
    expect("session" in readTaskRef(ref)).toBe(false);
  });

  it.each([
    ["an id that would break its header line", { ...session, id: "abc\r\nx-injected: 1" }],
    ["an id with a space", { ...session, id: "a b" }],
    ["an empty id", { ...session, id: "" }],
    ["an id longer than 1024 characters", { ...session, id: "a".repeat(1025) }],
    ["a number for an id", { ...session, id: 7 }],
    ["no protocol version", { id: session.id }],
    ["a string for a session", session.id],
    ["null", null],
  ])("refuses %s with TaskRefError", (_case, value) => {
    expect(() => readTaskRef({ ...ref, session: value })).toThrow(TaskRefError);
    expect(() => readTaskRef({ ...ref, session: value })).toThrow(/`session`/);
  });
});
