import { describe, expect, it, vi } from "vitest";
import { legacyDialect, modernDialect, orphanToCancel } from "../../../src/eras/dialect.js";
import { legacyTaskSupport } from "../../../src/eras/legacy/capabilities.js";
import { ProtocolError } from "../../../src/protocol/errors.js";

import type { ToolInfo, ToolSchemas } from "../../../src/tools/catalog.js";
import type { CallSpec } from "../../../src/eras/dialect.js";

const TOOLS: Record<string, ToolInfo> = {
  must: { name: "must", inputSchema: {}, execution: { taskSupport: "required" } },
  may: { name: "may", inputSchema: {}, execution: { taskSupport: "optional" } },
  not: { name: "not", inputSchema: {}, execution: { taskSupport: "forbidden" } },
  plain: { name: "plain", inputSchema: {} },
};

function catalog(): ToolSchemas & { tool: ReturnType<typeof vi.fn> } {
  return {
    tool: vi.fn(async (name: string) => TOOLS[name]),
    cached: (name: string) => TOOLS[name],
    refresh: async () => undefined,
  };
}

const FULL = legacyTaskSupport({ tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } });
const NONE = legacyTaskSupport({ tools: {} });
const call = (toolName: string, extra: Partial<CallSpec> = {}): CallSpec => ({
  method: "tools/call",
  params: { name: toolName, arguments: {} },
  toolName,
  ...extra,
});
const dialect = (support = FULL, tools = catalog(), mode: "auto" | "never" = "auto") =>
  legacyDialect({ tools, support, mode, warn: () => undefined, now: () => 0 });

const related = (taskId: string) => ({
  content: [{ type: "text", text: "started" }],
  _meta: { "io.modelcontextprotocol/related-task": { taskId } },
});

describe("deciding to augment a call on a 2025-11-25 server", () => {
  it("always asks for a task for a required tool, with the caller's ttl", async () => {
    expect((await dialect().prepare(call("must"))).params).toEqual({ name: "must", arguments: {}, task: {} });
    const withTtl = await dialect().prepare(call("must", { taskTtlMs: 5000 }));
    expect(withTtl).toMatchObject({ augmented: true, params: { task: { ttl: 5000 } } });
  });

  it("asks for a task for an optional tool unless legacyTasks is never (client or call)", async () => {
    expect((await dialect().prepare(call("may"))).augmented).toBe(true);
    expect((await dialect().prepare(call("may", { legacyTasks: "never" }))).params).not.toHaveProperty(
      "task",
    );
    expect((await dialect(FULL, catalog(), "never").prepare(call("may"))).augmented).toBeUndefined();
    expect(
      (await dialect(FULL, catalog(), "never").prepare(call("may", { legacyTasks: "auto" }))).augmented,
    ).toBe(true);
  });

  it("makes a plain call for forbidden, absent and unknown tools", async () => {
    for (const name of ["not", "plain", "missing"]) {
      expect((await dialect().prepare(call(name))).params).not.toHaveProperty("task");
    }
  });

  it("does not even list tools when the server cannot run tool calls as tasks", () => {
    const tools = catalog();
    const spec = call("must");
    expect(dialect(NONE, tools).prepare(spec)).toBe(spec);
    expect(tools.tool).not.toHaveBeenCalled();
  });
});

describe("reading a call's answer", () => {
  const created = {
    task: {
      taskId: "t-1",
      status: "working",
      createdAt: "x",
      lastUpdatedAt: "x",
      ttl: 1000,
      pollInterval: 20,
    },
  };

  it("reads a 2025 CreateTaskResult as a task", () => {
    expect(dialect().classify({ ...call("must"), augmented: true }, created)).toMatchObject({
      kind: "task",
      task: { taskId: "t-1", ttlMs: 1000, pollIntervalMs: 20 },
    });
  });

  it("reads a CreateTaskResult with an empty content array as a task too", () => {
    expect(
      dialect().classify({ ...call("must"), augmented: true }, { ...created, content: [] }),
    ).toMatchObject({
      kind: "task",
    });
  });

  it("follows the task a placeholder names when the server offers tasks", () => {
    expect(dialect().classify(call("plain"), related("t-2"))).toMatchObject({
      kind: "task",
      task: { taskId: "t-2", status: "working" },
    });
  });

  it("never settles a placeholder as completed where the task cannot be followed", () => {
    for (const run of [
      () => dialect(NONE).classify(call("plain"), related("t-3")),
      () => dialect(NONE).classify(call("plain"), created),
      () => modernDialect(true, () => undefined).classify(call("plain"), related("t-3")),
    ]) {
      let error: unknown;
      try {
        run();
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ProtocolError);
      expect((error as ProtocolError).taskId).toEqual(expect.stringMatching(/^t-/));
      expect(orphanToCancel(error)).toBeUndefined(); // not cancelled behind the caller's back
    }
  });

  it("passes a plain result through, unknown fields kept", () => {
    const result = { content: [], structuredContent: { a: 1 }, vendor: true };
    expect(dialect().classify(call("plain"), result)).toEqual({ kind: "complete", result });
    expect(modernDialect(true, () => undefined).classify(call("plain"), result)).toEqual({
      kind: "complete",
      result,
    });
  });
});
