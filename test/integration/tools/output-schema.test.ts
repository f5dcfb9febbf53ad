/**
 * Results checked against their tool's `outputSchema`, through the real client against the
 * reference server over Streamable HTTP (both protocol generations). A result that is not a tool error and whose
 * `structuredContent` is missing or does not match ends the handle with `OutputSchemaError`, which keeps the
 * result and the task id; `validateOutput: false` checks nothing and asks for no tool list.
 */
import { http, HttpResponse, passthrough } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { OutputSchemaError, TaskClient, type TaskClientOptions } from "../../../src/index.js";
import type { JsonSchemaValidator } from "../../../src/tools/json-schema.js";
import {
  defineTool,
  startTaskServer,
  step,
  structuredResult,
  textResult,
  type HttpTaskServer,
} from "../../../src/testing/index.js";

const SUM_SCHEMA = {
  type: "object",
  properties: { sum: { type: "number" }, terms: { type: "array", items: { type: "integer" } } },
  required: ["sum"],
};

/** `add` answers at once; `add_later` runs as a task. Each answers from `args.reply`, whatever it is. */
function sumTools() {
  const reply = (args: Readonly<Record<string, unknown>>) => {
    const value = args.reply;
    if (value === "error") return textResult("cannot add that", { isError: true });
    if (value === "text only") return textResult("7");
    return structuredResult(value as Record<string, unknown>);
  };
  return [
    defineTool({
      name: "add",
      outputSchema: SUM_SCHEMA,
      task: "never",
      steps: (args) => [step.complete(reply(args))],
    }),
    defineTool({
      name: "add_later",
      outputSchema: SUM_SCHEMA,
      task: "required",
      pollIntervalMs: 10,
      steps: (args) => [step.working("adding"), step.complete(reply(args))],
    }),
    defineTool({ name: "echo", task: "never", steps: [step.complete(structuredResult({ any: "thing" }))] }),
  ];
}

const FAST = { polling: { defaultIntervalMs: 10, minIntervalMs: 5, jitter: 0 } } as const;

let modern: HttpTaskServer;
let legacy: HttpTaskServer;

beforeAll(async () => {
  modern = await startTaskServer({ tools: sumTools() });
  legacy = await startTaskServer({ tools: sumTools(), era: "2025-11-25" });
});

afterAll(async () => {
  await modern?.close();
  await legacy?.close();
});

async function withClient<T>(
  server: HttpTaskServer,
  options: TaskClientOptions,
  body: (client: TaskClient) => Promise<T>,
): Promise<T> {
  const client = await TaskClient.connect(server.url, { ...FAST, ...options });
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

function toolLists(server: HttpTaskServer): number {
  return server.requests.forMethod("tools/list").length;
}

describe.each([
  ["2026-07-28", () => modern],
  ["2025-11-25", () => legacy],
])("a tool with an outputSchema, on a %s server", (_, serverOf) => {
  it("hands on a result whose structuredContent matches, immediate or from a task", async () => {
    await withClient(serverOf(), {}, async (client) => {
      const now = await client.callTool("add", { reply: { sum: 3, terms: [1, 2] } });
      expect(now.structuredContent).toEqual({ sum: 3, terms: [1, 2] });
      const later = await client.callTool("add_later", { reply: { sum: 5 } }).outcome();
      expect(later).toMatchObject({ kind: "completed", result: { structuredContent: { sum: 5 } } });
      expect(later.taskId).toEqual(expect.any(String));
    });
  });

  it("ends an immediate result that does not match with OutputSchemaError naming the field, the result kept", async () => {
    await withClient(serverOf(), {}, async (client) => {
      const outcome = await client.callTool("add", { reply: { sum: "three" } }).outcome();
      expect(outcome.kind).toBe("error");
      const error = outcome.kind === "error" ? outcome.error : undefined;
      expect(error).toBeInstanceOf(OutputSchemaError);
      const schemaError = error as OutputSchemaError;
      expect(schemaError.toolName).toBe("add");
      expect(schemaError.taskId).toBeUndefined();
      expect(schemaError.method).toBe("tools/call");
      expect(schemaError.result.structuredContent).toEqual({ sum: "three" });
      expect(schemaError.problems[0]).toEqual({
        path: "/sum",
        message: 'Instance type "string" is invalid. Expected "number".',
      });
      expect(schemaError.message).toMatch(
        /^tools\/call: the result of "add" does not match its outputSchema: \/sum: Instance type "string"/,
      );
    });
  });

  it("ends a task whose result has no structuredContent with OutputSchemaError carrying the task id", async () => {
    await withClient(serverOf(), {}, async (client) => {
      const handle = client.callTool("add_later", { reply: "text only" });
      const statuses: string[] = [];
      for await (const update of handle) statuses.push(update.status);
      const outcome = await handle.outcome();
      expect(statuses.at(-1)).toBe("completed"); // what the server said; the check decides the outcome
      expect(outcome.kind).toBe("error");
      const error = (outcome as { error: unknown }).error as OutputSchemaError;
      expect(error).toBeInstanceOf(OutputSchemaError);
      expect(outcome.taskId).toEqual(expect.any(String));
      expect(error.taskId).toBe(outcome.taskId);
      expect(error.problems).toEqual([{ path: "", message: "structuredContent is missing" }]);
      expect(error.result.content).toEqual([{ type: "text", text: "7" }]);
      await expect(handle).rejects.toBe(error);
    });
  });

  it("hands on a result with isError: true unchecked, as the spec says", async () => {
    await withClient(serverOf(), {}, async (client) => {
      const result = await client.callTool("add", { reply: "error" });
      expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "cannot add that" }] });
      const later = await client.callTool("add_later", { reply: "error" });
      expect(later.isError).toBe(true);
    });
  });
});

describe("when the tool list is fetched", () => {
  it("once per connection, when the first result needs it, whatever the number of calls", async () => {
    const server = await startTaskServer({ tools: sumTools() });
    try {
      await withClient(server, {}, async (client) => {
        await client.callTool("add", { reply: { sum: 1 } });
        const methods = server.requests
          .all()
          .map((entry) => entry.method)
          .filter((method) => method?.startsWith("tools/") === true);
        // The first immediate result waits for the list, asked for after the call was answered.
        expect(methods).toEqual(["tools/call", "tools/list"]);
        await Promise.all([
          client.callTool("add", { reply: { sum: 2 } }),
          client.callTool("add_later", { reply: { sum: 3 } }),
          client.callTool("echo"),
        ]);
        expect(toolLists(server)).toBe(1);
      });
    } finally {
      await server.close();
    }
  });

  it("never, with validateOutput: false, which hands on any structuredContent", async () => {
    const server = await startTaskServer({ tools: sumTools() });
    try {
      await withClient(server, { validateOutput: false }, async (client) => {
        const result = await client.callTool("add", { reply: { sum: "three" } });
        expect(result.structuredContent).toEqual({ sum: "three" });
        await client.callTool("add_later", { reply: "text only" });
      });
      expect(toolLists(server)).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("once from a server without tools/list, whose results are then handed on unchecked, with one warning", async () => {
    const interceptor = setupServer(
      http.post(modern.url, async ({ request }) => {
        const body = (await request.clone().json()) as { id?: string; method?: string };
        if (body.method !== "tools/list") return passthrough();
        const error = { code: -32601, message: "Method not found" };
        return HttpResponse.json({ jsonrpc: "2.0", id: body.id, error });
      }),
    );
    // msw sees `fetch` only.
    vi.stubEnv("MCP_TASKS_HTTP", "fetch");
    interceptor.listen({ onUnhandledRequest: "bypass" });
    const warnings: string[] = [];
    const before = toolLists(modern);
    try {
      const logger = { warn: (message: string) => warnings.push(message) };
      await withClient(modern, { logger }, async (client) => {
        expect((await client.callTool("add", { reply: { sum: "x" } })).structuredContent).toEqual({
          sum: "x",
        });
        expect((await client.callTool("add_later", { reply: { sum: "y" } })).structuredContent).toEqual({
          sum: "y",
        });
      });
    } finally {
      interceptor.close();
      vi.unstubAllEnvs();
    }
    expect(toolLists(modern) - before).toBe(0); // answered by the interceptor, never reached the server
    expect(warnings.filter((warning) => /no tools\/list/.test(warning))).toHaveLength(1);
  });
});

describe("the validator", () => {
  it("can be given: validateOutput takes any JsonSchemaValidator, compiled once per schema", async () => {
    const compiled: unknown[] = [];
    const checked: unknown[] = [];
    const validator: JsonSchemaValidator = {
      compile(schema) {
        compiled.push(schema);
        return (value) => {
          checked.push(value);
          return (value as { sum?: unknown }).sum === 42 ? [] : [{ path: "/sum", message: "must be 42" }];
        };
      },
    };
    await withClient(modern, { validateOutput: validator }, async (client) => {
      expect((await client.callTool("add", { reply: { sum: 42 } })).structuredContent).toEqual({ sum: 42 });
      const error = await client.callTool("add_later", { reply: { sum: 41 } }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(OutputSchemaError);
      expect((error as OutputSchemaError).message).toMatch(
        /does not match its outputSchema: \/sum: must be 42$/,
      );
    });
    // One per tool that has a schema, and add_later's again from the list fetched anew before its refusal.
    expect(compiled).toEqual([SUM_SCHEMA, SUM_SCHEMA, SUM_SCHEMA]);
    // A result that matches is checked once; one refused, once against each listing.
    expect(checked).toEqual([{ sum: 42 }, { sum: 41 }, { sum: 41 }]);
  });

  it("that cannot compile a schema fails that tool's results instead of handing them on unchecked", async () => {
    const broken: JsonSchemaValidator = {
      compile() {
        throw new Error("unsupported keyword");
      },
    };
    await withClient(modern, { validateOutput: broken }, async (client) => {
      const outcome = await client.callTool("add", { reply: { sum: 1 } }).outcome();
      const error = (outcome as { error?: unknown }).error as OutputSchemaError;
      expect(error).toBeInstanceOf(OutputSchemaError);
      expect(error.problems).toEqual([]);
      expect((error.cause as Error).message).toBe("unsupported keyword");
      expect(error.message).toMatch(/could not be checked: its outputSchema could not be compiled/);
      // A tool without a schema is not affected.
      expect((await client.callTool("echo")).structuredContent).toEqual({ any: "thing" });
    });
  });

  it("leaves the listed schema as the server sent it", async () => {
    await withClient(modern, {}, async (client) => {
      await client.callTool("add", { reply: { sum: 1 } });
      const listed = (await client.listTools()).find((tool) => tool.name === "add");
      expect(listed?.outputSchema).toEqual(SUM_SCHEMA);
      expect(Object.getOwnPropertyNames(listed?.outputSchema)).toEqual(["type", "properties", "required"]);
    });
  });
});

describe("the reference kit's typed tools", () => {
  it.each([
    ["2026-07-28", () => modern],
    ["2025-11-25", () => legacy],
  ])("lists a tool's outputSchema in tools/list on a %s server", async (_, serverOf) => {
    await withClient(serverOf(), { validateOutput: false }, async (client) => {
      const listed = await client.listTools();
      expect(listed.find((tool) => tool.name === "add")?.outputSchema).toEqual(SUM_SCHEMA);
      expect(listed.find((tool) => tool.name === "echo")).not.toHaveProperty("outputSchema");
    });
  });

  it("refuses an outputSchema that is not an object, naming the tool", () => {
    expect(() =>
      defineTool({ name: "bad", outputSchema: [] as unknown as Record<string, unknown>, steps: [] }),
    ).toThrow(/tool "bad": outputSchema must be a JSON Schema object/);
  });
});
