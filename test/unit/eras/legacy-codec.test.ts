import { describe, expect, it, vi } from "vitest";
import {
  parseLegacyCreateTaskResult,
  parseLegacyTask,
  parseLegacyTaskPage,
  payloadOfError,
  unrequestedTaskIdOf,
} from "../../../src/eras/legacy/codec.js";
import { ProtocolError, RpcError, TransportError } from "../../../src/protocol/errors.js";

const task = {
  taskId: "t-1",
  status: "working",
  createdAt: "2025-11-25T10:30:00Z",
  lastUpdatedAt: "2025-11-25T10:30:01Z",
  ttl: 60000,
  pollInterval: 500,
};

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("the 2025-11-25 task codec", () => {
  it("maps ttl and pollInterval onto ttlMs and pollIntervalMs and keeps unknown fields", () => {
    const parsed = parseLegacyTask("tasks/get", { ...task, statusMessage: "going", vendor: { x: 1 } });
    expect(parsed).toEqual({
      taskId: "t-1",
      status: "working",
      statusMessage: "going",
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      ttlMs: 60000,
      pollIntervalMs: 500,
      vendor: { x: 1 },
    });
  });

  it("reads a null or missing ttl as an unknown lifetime", () => {
    expect(parseLegacyTask("tasks/get", { ...task, ttl: null }).ttlMs).toBeNull();
    const { ttl: _ttl, ...noTtl } = task;
    expect(parseLegacyTask("tasks/get", noTtl).ttlMs).toBeNull();
  });

  it("reads a bad pollInterval leniently, with a warning, and keeps the task", () => {
    const warn = vi.fn();
    expect(parseLegacyTask("tasks/get", { ...task, pollInterval: "250" }, warn).pollIntervalMs).toBe(250);
    const dropped = parseLegacyTask("tasks/get", { ...task, pollInterval: "soon" }, warn);
    expect(dropped.pollIntervalMs).toBeUndefined();
    expect(dropped.taskId).toBe("t-1");
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it.each([
    ["an unknown status", { ...task, status: "paused" }],
    ["no taskId", { ...task, taskId: undefined }],
    ["a numeric createdAt", { ...task, createdAt: 12 }],
    ["not an object", "working"],
  ])("refuses %s with a ProtocolError that names the method and carries the frame", (_what, frame) => {
    const error = thrown(() => parseLegacyTask("tasks/get", frame));
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).method).toBe("tasks/get");
    expect((error as ProtocolError).frame).toBe(frame);
  });

  it("turns a nested CreateTaskResult into the flat internal one, its _meta kept", () => {
    const meta = { "io.modelcontextprotocol/model-immediate-response": "started" };
    const created = parseLegacyCreateTaskResult("tools/call", { task, _meta: meta });
    expect(created).toMatchObject({ resultType: "task", taskId: "t-1", ttlMs: 60000, pollIntervalMs: 500 });
    expect(created._meta).toEqual(meta);
  });

  it("keeps the task id of a CreateTaskResult it cannot read (a ProtocolError carrying the id)", () => {
    const frame = { task: { taskId: "t-9", status: "working" } };
    const error = thrown(() => parseLegacyCreateTaskResult("tools/call", frame));
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).taskId).toBe("t-9");
    expect((error as ProtocolError).frame).toBe(frame);
  });

  it("reads tasks/list pages and refuses malformed ones", () => {
    expect(parseLegacyTaskPage({ tasks: [task], nextCursor: "c" })).toMatchObject({
      tasks: [{ taskId: "t-1", ttlMs: 60000 }],
      nextCursor: "c",
    });
    expect(parseLegacyTaskPage({ tasks: [] })).toEqual({ tasks: [] });
    expect(() => parseLegacyTaskPage({ tasks: {} })).toThrow(ProtocolError);
    expect(() => parseLegacyTaskPage({ tasks: [], nextCursor: 3 })).toThrow(ProtocolError);
    expect(() => parseLegacyTaskPage({ tasks: [{ ...task, status: "?" }] })).toThrow(ProtocolError);
  });

  it("finds the task a placeholder result points at", () => {
    const related = { "io.modelcontextprotocol/related-task": { taskId: "t-2" } };
    expect(unrequestedTaskIdOf({ content: [], _meta: related })).toBe("t-2");
    expect(unrequestedTaskIdOf({ content: [], task: { taskId: "t-3" } })).toBe("t-3");
    expect(unrequestedTaskIdOf({ content: [], _meta: { other: 1 } })).toBeUndefined();
    expect(unrequestedTaskIdOf({ content: [], task: { taskId: "" } })).toBeUndefined();
  });

  it("takes a JSON-RPC error of tasks/result as the payload, a transport fault not", () => {
    expect(payloadOfError(new RpcError("tasks/result", -32603, "boom", { why: 1 }))).toEqual({
      error: { code: -32603, message: "boom", data: { why: 1 } },
    });
    expect(payloadOfError(new TransportError("down", { transient: true }))).toBeUndefined();
  });
});
