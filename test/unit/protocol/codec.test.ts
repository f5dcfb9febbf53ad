import { describe, expect, it } from "vitest";
import {
  advertisesTasks,
  classifyResult,
  errorFromRpc,
  parseAck,
  parseCallToolResult,
  parseDiscoverResult,
  parseGetTaskResult,
  parseInitializeResult,
  parseTaskNotification,
  normaliseAdvisoryFields,
} from "../../../src/protocol/codec.js";
import { MissingCapabilityError, ProtocolError, RpcError } from "../../../src/protocol/errors.js";

const TASK_ID = "786512e2-9e0d-44bd-8f29-789f320fe840";
const taskFields = {
  taskId: TASK_ID,
  createdAt: "2026-07-28T10:30:00Z",
  lastUpdatedAt: "2026-07-28T10:40:00Z",
  ttlMs: 60_000,
  pollIntervalMs: 5_000,
};
const toolResult = { content: [{ type: "text", text: "sunny" }] };
const elicit = {
  method: "elicitation/create",
  params: { message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } },
};

function rejection(run: () => unknown): ProtocolError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ProtocolError);
    return error as ProtocolError;
  }
  throw new Error("expected a ProtocolError");
}

describe("classifying a tools/call answer", () => {
  it("reads an answer without resultType as a complete tool result", () => {
    const answer = classifyResult("tools/call", toolResult);
    expect(answer).toEqual({ kind: "complete", result: toolResult });
  });

  it("returns the server's own object, unknown fields and all", () => {
    const frame = { resultType: "complete", ...toolResult, "x-vendor": { trace: "abc" } };
    const answer = classifyResult("tools/call", frame);
    expect(answer.kind === "complete" && answer.result).toBe(frame);
  });

  it("rejects a complete answer that is not a CallToolResult", () => {
    const frame = { resultType: "complete", content: "sunny" };
    const error = rejection(() => classifyResult("tools/call", frame));
    expect(error.method).toBe("tools/call");
    expect(error.frame).toBe(frame);
    expect(error.message).toMatch(/content/);
  });

  it("recognises a multi-round-trip request for input", () => {
    const frame = { resultType: "input_required", inputRequests: { name: elicit }, requestState: "opaque" };
    expect(classifyResult("tools/call", frame)).toEqual({ kind: "input_required", result: frame });
  });

  it("rejects a request for input from a method that may not ask for it", () => {
    const error = rejection(() =>
      classifyResult("tasks/get", { resultType: "input_required", inputRequests: {} }),
    );
    expect(error.message).toMatch(/not allowed/);
  });

  it("recognises a task, keeping the extra keys an SDK server adds", () => {
    const frame = { content: [], resultType: "task", status: "working", ...taskFields };
    const answer = classifyResult("tools/call", frame);
    expect(answer.kind).toBe("task");
    expect(answer.kind === "task" && answer.task).toBe(frame);
  });

  it("accepts a task whose ttlMs is null (unlimited)", () => {
    const answer = classifyResult("tools/call", {
      resultType: "task",
      status: "working",
      ...taskFields,
      ttlMs: null,
    });
    expect(answer.kind).toBe("task");
  });

  it("rejects a task for a method that cannot create tasks, exposing the stray task id", () => {
    const frame = { resultType: "task", status: "working", ...taskFields };
    const error = rejection(() => classifyResult("prompts/get", frame));
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).taskId).toBe(TASK_ID);
    expect(error.message).not.toContain(TASK_ID);
  });

  it("rejects a task for a request that did not declare the extension, exposing its id", () => {
    const frame = { resultType: "task", status: "working", ...taskFields };
    const error = rejection(() => classifyResult("tools/call", frame, { tasksDeclared: false }));
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).taskId).toBe(TASK_ID);
  });

  it("rejects a malformed task, still exposing its id when there is one", () => {
    const { createdAt: _created, ...withoutCreatedAt } = taskFields;
    const error = rejection(() =>
      classifyResult("tools/call", { resultType: "task", status: "working", ...withoutCreatedAt }),
    );
    expect((error as ProtocolError).taskId).toBe(TASK_ID);
    expect(error.message).toMatch(/createdAt/);
    const anonymous = rejection(() =>
      classifyResult("tools/call", { resultType: "task", status: "working" }),
    );
    expect((anonymous as ProtocolError).taskId).toBeUndefined();
  });

  it("treats an unknown resultType as invalid", () => {
    const error = rejection(() => classifyResult("tools/call", { resultType: "deferred", ...toolResult }));
    expect(error.message).toMatch(/unknown resultType "deferred"/);
  });

  it.each([null, "ok", 42, [toolResult]])("rejects a result that is not an object (%j)", (frame) => {
    rejection(() => classifyResult("tools/call", frame));
  });

  it("validates a completed task's nested tool result, with or without resultType", () => {
    expect(parseCallToolResult(toolResult, "tasks/get")).toBe(toolResult);
    expect(parseCallToolResult({ resultType: "complete", ...toolResult }, "tasks/get").content).toHaveLength(
      1,
    );
    expect(rejection(() => parseCallToolResult({ resultType: "input_required" }, "tasks/get")).method).toBe(
      "tasks/get",
    );
  });
});

describe("parsing a tasks/get answer", () => {
  it.each([
    ["working", { status: "working" }],
    ["input_required", { status: "input_required", inputRequests: { name: elicit } }],
    ["completed", { status: "completed", result: toolResult }],
    ["failed", { status: "failed", error: { code: -32603, message: "boom" } }],
    ["cancelled", { status: "cancelled" }],
  ])("accepts a %s task and returns the same object", (_status, payload) => {
    const frame = { resultType: "complete", ...taskFields, ...payload };
    expect(parseGetTaskResult(frame)).toBe(frame);
  });

  it("reads a missing resultType leniently as complete", () => {
    expect(parseGetTaskResult({ ...taskFields, status: "working" }).status).toBe("working");
  });

  it("keeps unknown fields", () => {
    const frame = { resultType: "complete", ...taskFields, status: "working", progressHint: 0.5 };
    expect(parseGetTaskResult(frame)).toHaveProperty("progressHint", 0.5);
  });

  it.each([
    ["completed without its result", { status: "completed" }],
    ["failed without its error", { status: "failed" }],
    ["input_required without inputRequests", { status: "input_required" }],
    ["input_required with no requests at all", { status: "input_required", inputRequests: {} }],
    ["an unknown status", { status: "paused" }],
    [
      "a failed task whose error is not a JSON-RPC error",
      { status: "failed", error: { message: "no code" } },
    ],
  ])("rejects %s", (_what, payload) => {
    const frame = { resultType: "complete", ...taskFields, ...payload };
    const error = rejection(() => parseGetTaskResult(frame));
    expect(error.method).toBe("tasks/get");
    expect(error.frame).toBe(frame);
    expect(error.message).not.toContain(TASK_ID);
  });

  it.each(["task", "input_required", "later"])("rejects resultType %j", (resultType) => {
    rejection(() => parseGetTaskResult({ resultType, ...taskFields, status: "working" }));
  });
});

describe("parsing acknowledgements, notifications and discovery", () => {
  it.each(["tasks/update", "tasks/cancel"])("accepts an empty acknowledgement of %s", (method) => {
    const ack = { resultType: "complete", _meta: {} };
    expect(parseAck(method, ack)).toBe(ack);
    expect(parseAck(method, {})).toEqual({});
  });

  it("rejects an acknowledgement that claims to be a task", () => {
    expect(rejection(() => parseAck("tasks/cancel", { resultType: "task" })).method).toBe("tasks/cancel");
  });

  it("accepts a notification carrying a complete task state", () => {
    const params = { ...taskFields, status: "completed", result: toolResult, _meta: { sub: 1 } };
    expect(parseTaskNotification(params)).toBe(params);
  });

  it("rejects a notification whose status lacks its payload", () => {
    const error = rejection(() => parseTaskNotification({ ...taskFields, status: "failed" }));
    expect(error.method).toBe("notifications/tasks");
  });

  it("reads whether a server advertises the tasks extension, settings objects with keys included", () => {
    const discover = (extensions?: Record<string, unknown>) =>
      parseDiscoverResult({ supportedVersions: ["2026-07-28"], capabilities: { tools: {}, extensions } });
    expect(advertisesTasks(discover({ "io.modelcontextprotocol/tasks": {} }))).toBe(true);
    expect(advertisesTasks(discover({ "io.modelcontextprotocol/tasks": { maxTtlMs: 1000 } }))).toBe(true);
    expect(advertisesTasks(discover({ "example.com/other": {} }))).toBe(false);
    expect(advertisesTasks(discover())).toBe(false);
  });

  it("rejects a discover result without supported versions", () => {
    expect(rejection(() => parseDiscoverResult({ capabilities: {} })).method).toBe("server/discover");
  });

  it("validates a 2025-era initialize result", () => {
    const result = {
      protocolVersion: "2025-11-25",
      capabilities: {},
      serverInfo: { name: "s", version: "1" },
    };
    expect(parseInitializeResult(result)).toBe(result);
    rejection(() => parseInitializeResult({ protocolVersion: "2025-11-25", capabilities: {} }));
  });
});

describe("mapping JSON-RPC errors", () => {
  it("turns -32021 into a MissingCapabilityError naming what is missing", () => {
    const error = errorFromRpc("tools/call", {
      code: -32021,
      message: "Missing required client capability",
      data: { requiredCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } } },
    });
    expect(error).toBeInstanceOf(MissingCapabilityError);
    expect((error as MissingCapabilityError).missing).toEqual(["extensions.io.modelcontextprotocol/tasks"]);
    expect((error as MissingCapabilityError).code).toBe(-32021);
  });

  it("treats the older -32003 exactly like -32021", () => {
    expect(errorFromRpc("tasks/get", { code: -32003, message: "missing" })).toBeInstanceOf(
      MissingCapabilityError,
    );
  });

  it("turns any other code into an RpcError carrying code, message and data", () => {
    const error = errorFromRpc("tasks/get", { code: -32602, message: "Unknown task", data: { id: 1 } });
    expect(error).toBeInstanceOf(RpcError);
    expect(error).not.toBeInstanceOf(MissingCapabilityError);
    expect(error).toMatchObject({
      method: "tasks/get",
      code: -32602,
      rpcMessage: "Unknown task",
      data: { id: 1 },
    });
  });

  it("turns an error object that is not a JSON-RPC error into a ProtocolError", () => {
    expect(errorFromRpc("tasks/get", { message: "no code" })).toBeInstanceOf(ProtocolError);
    expect(errorFromRpc("tasks/get", "boom")).toBeInstanceOf(ProtocolError);
  });
});

describe("advisory fields are read liberally, identity and outcome strictly", () => {
  const working = { ...taskFields, status: "working" };
  const created = { resultType: "task", ...working };
  const collect = () => {
    const warnings: string[] = [];
    return { warnings, warn: (message: string) => warnings.push(message) };
  };

  it("reads a decimal-string pollIntervalMs as its number, with a warning, on every task path", () => {
    for (const value of ["100", " 100 ", "99.6"]) {
      const { warnings, warn } = collect();
      expect(classifyResult("tools/call", { ...created, pollIntervalMs: value }, { warn })).toMatchObject({
        kind: "task",
        task: { pollIntervalMs: 100 },
      });
      expect(parseGetTaskResult({ ...working, pollIntervalMs: value }, warn).pollIntervalMs).toBe(100);
      expect(parseTaskNotification({ ...working, pollIntervalMs: value }, warn).pollIntervalMs).toBe(100);
      expect(warnings).toHaveLength(3);
      expect(warnings[0]).toMatch(/^tools\/call: pollIntervalMs came as a string; read as 100$/);
    }
  });

  it("drops any other unusable pollIntervalMs (default interval) with a warning", () => {
    for (const value of ["fast", "", "1e3", "0x10", true, null, {}, [], 2 ** 60]) {
      const { warnings, warn } = collect();
      const task = parseGetTaskResult({ ...working, pollIntervalMs: value }, warn);
      expect(task).not.toHaveProperty("pollIntervalMs");
      expect(task.status).toBe("working");
      expect(warnings).toEqual([
        expect.stringMatching(/^tasks\/get: pollIntervalMs .*default poll interval$/),
      ]);
    }
  });

  it("reads ttlMs liberally: a decimal string as its number, anything else unusable as null (no known lifetime)", () => {
    const { warnings, warn } = collect();
    expect(parseGetTaskResult({ ...working, ttlMs: "60000" }, warn).ttlMs).toBe(60_000);
    expect(parseGetTaskResult({ ...working, ttlMs: "forever" }, warn).ttlMs).toBeNull();
    expect(parseGetTaskResult({ ...working, ttlMs: 2 ** 60 }, warn).ttlMs).toBeNull();
    expect(parseGetTaskResult({ ...working, ttlMs: -1 }, warn).ttlMs).toBe(-1); // a number: bounded later
    const { ttlMs: _ttl, ...withoutTtl } = working;
    expect(parseGetTaskResult(withoutTtl, warn).ttlMs).toBeNull();
    expect(parseGetTaskResult({ ...working, ttlMs: null }, warn).ttlMs).toBeNull();
    expect(warnings).toHaveLength(4); // null is the spec's "unlimited": nothing to warn about
  });

  it("drops a statusMessage that is not a string, with a warning", () => {
    const { warnings, warn } = collect();
    const task = parseGetTaskResult({ ...working, statusMessage: 42 }, warn);
    expect(task).not.toHaveProperty("statusMessage");
    expect(warnings).toEqual(["tasks/get: statusMessage is a number, not a string; ignored"]);
  });

  it("rounds a fractional interval silently and leaves a well-formed frame untouched (the same object)", () => {
    const { warnings, warn } = collect();
    expect(parseGetTaskResult({ ...working, pollIntervalMs: 120.6 }, warn).pollIntervalMs).toBe(121);
    const frame = { ...working, statusMessage: "busy" };
    expect(parseGetTaskResult(frame, warn)).toBe(frame);
    expect(warnings).toEqual([]);
  });

  it("never puts the value (which could be anything, even a task id) in a warning", () => {
    const { warnings, warn } = collect();
    normaliseAdvisoryFields(
      "tasks/get",
      { ...working, pollIntervalMs: TASK_ID, statusMessage: [TASK_ID] },
      warn,
    );
    expect(warnings).toHaveLength(2);
    for (const message of warnings) expect(message).not.toContain(TASK_ID);
  });

  it("stays strict about taskId, status, result and error", () => {
    rejection(() => parseGetTaskResult({ ...working, taskId: 7, pollIntervalMs: "100" }));
    rejection(() => parseGetTaskResult({ ...working, status: "paused" }));
    rejection(() => parseGetTaskResult({ ...working, status: "completed", result: "done" }));
    rejection(() => parseGetTaskResult({ ...working, status: "failed", error: "boom" }));
    expect(() => classifyResult("tools/call", { ...created, taskId: undefined })).toThrow(ProtocolError);
  });

  it("needs no warn callback (the default hears nothing)", () => {
    expect(parseGetTaskResult({ ...working, pollIntervalMs: "100" }).pollIntervalMs).toBe(100);
  });
});

describe("JSON nested deeper than 256 levels (decision 17)", () => {
  /** `{ a: { a: … 1 } }`, `levels` objects deep, as `JSON.parse` builds it. */
  const deep = (levels: number): unknown => JSON.parse(`${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`);

  it("a tasks/get answer is refused, without the frame on the error", () => {
    const error = rejection(() =>
      parseGetTaskResult({ ...taskFields, status: "working", _meta: { tree: deep(256) } }),
    );
    expect(error.message).toBe(
      "tasks/get: answered with JSON that nests objects or arrays deeper than 256 levels",
    );
    expect(error.frame).toBeUndefined();
    // 255 below the answer's own object: exactly at the bound, read as usual.
    expect(parseGetTaskResult({ ...taskFields, status: "working", _meta: deep(255) }).status).toBe("working");
  });

  it("a CreateTaskResult too deep to read is a ProtocolError carrying the task id, never a lost task", () => {
    const error = rejection(() =>
      classifyResult("tools/call", {
        resultType: "task",
        ...taskFields,
        status: "working",
        statusMessage: deep(10_000),
      }),
    );
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).taskId).toBe(TASK_ID);
  });

  it("a notification, a tool result and a JSON-RPC error's data are refused alike", () => {
    rejection(() => parseTaskNotification({ ...taskFields, status: "working", _meta: deep(1000) }));
    rejection(() => parseCallToolResult({ content: [], structuredContent: deep(1000) }));
    expect(errorFromRpc("tasks/get", { code: -32603, message: "x", data: deep(1000) })).toBeInstanceOf(
      ProtocolError,
    );
  });
});
