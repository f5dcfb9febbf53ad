import { describe, expect, it } from "vitest";
import { OutputSchemaError } from "../../../src/protocol/errors.js";
import type { CallToolResult } from "../../../src/schema/index.js";
import type { RpcChannel } from "../../../src/session/types.js";
import { ToolCatalog } from "../../../src/tools/catalog.js";
import { OutputChecks, type OutputCheck } from "../../../src/tools/output-checks.js";
import { jsonSchemaValidator } from "../../../src/tools/json-schema-validator.js";

/** A channel whose tools/list answers with `tools()` at the time of asking, and that can push list_changed. */
function channelOf(tools: () => unknown[]) {
  let lists = 0;
  let listener: ((method: string, params: Record<string, unknown>) => void) | undefined;
  const channel: RpcChannel = {
    request: async (method) => {
      expect(method).toBe("tools/list");
      lists += 1;
      return { tools: tools() };
    },
    notify: async () => undefined,
    onNotification: (next) => {
      listener = next;
      return () => (listener = undefined);
    },
  };
  return { channel, lists: () => lists, push: (method: string) => listener?.(method, {}) };
}

const objectOf = (type: string) => ({
  type: "object",
  properties: { value: { type } },
  required: ["value"],
});
const result = (structuredContent: Record<string, unknown>): CallToolResult => ({
  content: [],
  structuredContent,
});

function checksOver(channel: RpcChannel) {
  const catalog = new ToolCatalog(channel, { checkParamHeaders: false, warn: () => undefined });
  return new OutputChecks(catalog, {
    validator: jsonSchemaValidator,
    listsTools: true,
    warn: () => undefined,
  });
}

async function checkOf(checks: OutputChecks, name: string): Promise<OutputCheck | undefined> {
  return await checks.checkFor(name);
}

describe("OutputChecks", () => {
  it("fetches the tool list once for every lookup, and answers later lookups without waiting", async () => {
    const { channel, lists } = channelOf(() => [{ name: "t", outputSchema: objectOf("number") }]);
    const checks = checksOver(channel);
    const lookups = [checks.checkFor("t"), checks.checkFor("t"), checks.checkFor("other")];
    expect(lookups[0]).toBeInstanceOf(Promise);
    const [first, second, other] = await Promise.all(lookups);
    expect(other).toBeUndefined();
    expect(first).toBe(second);
    const later = checks.checkFor("t");
    expect(later).toBe(first); // compiled once, handed out at once
    expect(lists()).toBe(1);
  });

  it("checks against the schema listed after notifications/tools/list_changed", async () => {
    let type = "number";
    const { channel, lists, push } = channelOf(() => [{ name: "t", outputSchema: objectOf(type) }]);
    const checks = checksOver(channel);
    const before = await checkOf(checks, "t");
    expect(before?.(result({ value: 1 }), "tools/call", undefined)).toBeUndefined();
    type = "string";
    push("notifications/tools/list_changed");
    const after = checks.checkFor("t");
    expect(after).toBeInstanceOf(Promise); // the old list is gone: the next lookup asks again
    const check = await after;
    expect(check?.(result({ value: 1 }), "tools/call", undefined)).toBeInstanceOf(OutputSchemaError);
    expect(check?.(result({ value: "one" }), "tools/call", undefined)).toBeUndefined();
    expect(lists()).toBe(2);
  });

  it("asks nothing of a server without tools, and has nothing to check for it", () => {
    const { channel, lists } = channelOf(() => []);
    const catalog = new ToolCatalog(channel, { checkParamHeaders: false, warn: () => undefined });
    const checks = new OutputChecks(catalog, {
      validator: undefined,
      listsTools: false,
      warn: () => undefined,
    });
    expect(checks.checkFor("t")).toBeUndefined();
    expect(lists()).toBe(0);
  });

  it("keeps at most 20 problems, most specific first, and clips long texts", async () => {
    const many = {
      type: "object",
      properties: { items: { type: "array", items: { type: "integer" } } },
    };
    const { channel } = channelOf(() => [{ name: "t", outputSchema: many }]);
    const catalog = new ToolCatalog(channel, { checkParamHeaders: false, warn: () => undefined });
    const validator = {
      compile: () => () =>
        Array.from({ length: 30 }, (_, index) => ({ path: `/items/${index}`, message: "x".repeat(500) })),
    };
    const checks = new OutputChecks(catalog, { validator, listsTools: true, warn: () => undefined });
    const error = (await checkOf(checks, "t"))?.(result({ items: [] }), "tasks/get", "task-1");
    expect(error?.problems).toHaveLength(20);
    expect(error?.problems[0]?.path).toBe("/items/0");
    expect(error?.problems[0]?.message).toHaveLength(201);
    expect(error?.taskId).toBe("task-1");
    expect(error?.message).toMatch(/\(30 problems in all\)$/);
  });
});

describe("jsonSchemaValidator (@cfworker/json-schema)", () => {
  const check = (schema: Record<string, unknown>, value: unknown) =>
    jsonSchemaValidator.compile(schema)(value);

  it("reads 2020-12 by default: prefixItems, $defs and $ref", () => {
    const schema = {
      type: "object",
      properties: {
        pair: { type: "array", prefixItems: [{ type: "string" }, { $ref: "#/$defs/count" }], items: false },
      },
      $defs: { count: { type: "integer", minimum: 0 } },
    };
    expect(check(schema, { pair: ["a", 1] })).toEqual([]);
    expect(check(schema, { pair: ["a", -1] })[0]).toEqual({
      path: "/pair/1",
      message: "-1 is less than 0.",
    });
    expect(check(schema, { pair: ["a", 1, "extra"] }).length).toBeGreaterThan(0);
  });

  it("follows a schema's $schema when it names draft-07", () => {
    // In draft-07 an array `items` is a tuple; additionalItems: false refuses a third element.
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "array",
      items: [{ type: "string" }, { type: "number" }],
      additionalItems: false,
    };
    expect(check({ type: "object", properties: { t: schema } }, { t: ["a", 1] })).toEqual([]);
    expect(check(schema, ["a", 1, 2]).length).toBeGreaterThan(0);
  });

  it("reports a missing required property at the object it belongs to", () => {
    const problems = check({ type: "object", required: ["sum"] }, {});
    expect(problems[0]?.path).toBe("");
    expect(problems[0]?.message).toMatch(/sum/);
  });
});
