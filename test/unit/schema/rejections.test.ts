/**
 * Messages that break the spec's wire shapes must be rejected by both validators of both versions, while
 * unknown keys (from newer revisions) must still pass: objects are open.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { VERSIONS, repoPath, validatorsFor, zodSchemaFor } from "./validators.js";

type Json = Record<string, unknown>;

function fixtureResult(file: string): Json {
  const message = JSON.parse(readFileSync(repoPath(`test/fixtures/spec/${file}`), "utf8")) as {
    result: Json;
  };
  return message.result;
}

function without(value: Json, key: string): Json {
  const copy = { ...value };
  delete copy[key];
  return copy;
}

const working = fixtureResult("tasks-get-working.json");
const completed = fixtureResult("tasks-get-completed.json");
const failed = fixtureResult("tasks-get-failed.json");
const inputRequired = fixtureResult("tasks-get-input-required.json");
const created = fixtureResult("create-task-result.json");

const INVALID_GET_TASK_RESULTS: { name: string; value: Json }[] = [
  { name: "completed without result", value: without(completed, "result") },
  { name: "failed without error", value: without(failed, "error") },
  { name: "failed with an error that has no code", value: { ...failed, error: { message: "boom" } } },
  { name: "input_required without inputRequests", value: without(inputRequired, "inputRequests") },
  { name: 'resultType "task" on a tasks/get result', value: { ...working, resultType: "task" } },
  { name: "a non-integer ttlMs", value: { ...working, ttlMs: 1.5 } },
  { name: "a ttlMs written as a string", value: { ...working, ttlMs: "3600000" } },
  { name: "a missing ttlMs", value: without(working, "ttlMs") },
  { name: "a non-integer pollIntervalMs", value: { ...working, pollIntervalMs: 2.5 } },
  { name: "an unknown status", value: { ...working, status: "paused" } },
];

describe.each(VERSIONS)("schema %s", (version) => {
  const validators = validatorsFor(version);

  describe.each(validators)("$name", (validator) => {
    it.each(INVALID_GET_TASK_RESULTS)("rejects a tasks/get result with $name", ({ value }) => {
      expect(validator.accepts("GetTaskResult", value)).toBe(false);
    });

    it("rejects a task notification whose completed task has no result", () => {
      expect(
        validator.accepts(
          "TaskStatusNotificationParams",
          without(without(completed, "result"), "resultType"),
        ),
      ).toBe(false);
    });

    it('rejects a CreateTaskResult whose resultType is not "task", or that lacks ttlMs', () => {
      expect(validator.accepts("CreateTaskResult", { ...created, resultType: "complete" })).toBe(false);
      expect(validator.accepts("CreateTaskResult", without(created, "ttlMs"))).toBe(false);
    });

    it("accepts ttlMs null (unlimited) and a missing pollIntervalMs", () => {
      const unlimited = without({ ...working, ttlMs: null }, "pollIntervalMs");
      expect(
        validator.accepts("GetTaskResult", unlimited),
        validator.explain("GetTaskResult", unlimited),
      ).toBe(true);
    });

    it("accepts unknown keys from newer revisions at every level", () => {
      const extended = {
        ...completed,
        futureField: { nested: true },
        result: { ...(completed.result as Json), futureResultField: 1 },
      };
      expect(validator.accepts("GetTaskResult", extended), validator.explain("GetTaskResult", extended)).toBe(
        true,
      );
    });
  });

  describe.each(validators)("$name, request params", (validator) => {
    const get = { jsonrpc: "2.0", id: 3, method: "tasks/get", params: { taskId: "786512e2" } };

    it("accepts a tasks/get without _meta, as the spec prints it", () => {
      expect(validator.accepts("GetTaskRequest", get), validator.explain("GetTaskRequest", get)).toBe(true);
    });

    it("rejects a tasks/get without taskId, and an envelope that is not an envelope", () => {
      expect(validator.accepts("GetTaskRequest", { ...get, params: {} })).toBe(false);
      const badMeta = {
        ...get,
        params: { ...get.params, _meta: { "io.modelcontextprotocol/protocolVersion": 1 } },
      };
      expect(validator.accepts("GetTaskRequest", badMeta)).toBe(false);
      const noCaps = {
        ...get,
        params: { ...get.params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
      };
      expect(validator.accepts("GetTaskRequest", noCaps)).toBe(false);
    });
  });

  it("keeps unknown keys when Zod parses a message", () => {
    const parsed = zodSchemaFor(version, "GetTaskResult").parse({ ...working, futureField: "kept" });
    expect(parsed).toMatchObject({ futureField: "kept", taskId: working.taskId });
  });
});

describe("related task ids on tools/call", () => {
  const call = JSON.parse(
    readFileSync(repoPath("test/fixtures/spec/tools-call-request-related-task-ids.json"), "utf8"),
  ) as { params: { _meta: Json } };
  const malformed = {
    ...call,
    params: {
      ...call.params,
      _meta: { ...call.params._meta, "io.modelcontextprotocol/relatedTaskIds": "task_1234" },
    },
  };

  it.each(validatorsFor("draft"))("the draft types them and rejects a non-array ($name)", (validator) => {
    expect(validator.accepts("CallToolRequest", malformed)).toBe(false);
  });

  it.each(validatorsFor("2026-07-28"))(
    "2026-07-28 does not know them and lets them pass ($name)",
    (validator) => {
      expect(validator.accepts("CallToolRequest", malformed)).toBe(true);
    },
  );
});
