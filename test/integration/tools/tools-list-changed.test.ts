/**
 * A 2026-07-28 client hears of a changed tool list on its listen: the reference server advertises
 * `tools.listChanged`, the client's `subscriptions/listen` asks for `toolsListChanged: true` beside its `taskIds`,
 * and the server sends `notifications/tools/list_changed` on that stream when its tools change
 * (`server.setTools`). The client drops its tool list then, so `listTools()` shows the new one and a task's result
 * is checked against the tool's new `outputSchema`, not the one listed when the task began. Through the real
 * client against the reference server over Streamable HTTP (127.0.0.1) and over stdio framing (in-process pipes).
 */
import { PassThrough } from "node:stream";
import { createInterface } from "node:readline";
import { describe, expect, it, onTestFinished } from "vitest";
import { OutputSchemaError, TaskClient } from "../../../src/index.js";
import { TaskHost } from "../../../src/host/index.js";
import {
  defineTool,
  startStdioTaskServer,
  startTaskServer,
  step,
  structuredResult,
  textResult,
  type Clock,
  type TaskServer,
} from "../../../src/testing/index.js";
import { PipeTransport } from "../notifications/fixtures/pipe-transport.js";
import { envelope } from "../server/rawRpc.js";
import { resolveTransport } from "../../../src/session/targets.js";
import type { McpTransport } from "../../../src/session/types.js";
import { textOf } from "../client/fixture-calls.js";

const TOOLS_CHANGED = "notifications/tools/list_changed";
const ACKNOWLEDGED = "notifications/subscriptions/acknowledged";
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
const FAST = { polling: { defaultIntervalMs: 10, minIntervalMs: 5, jitter: 0 } } as const;

/** `read_later`, whose readings are of `type`: a task that moves one step each time the test ticks the clock. */
function readLater(type: "number" | "string") {
  return defineTool({
    name: "read_later",
    outputSchema: { type: "object", properties: { reading: { type } }, required: ["reading"] },
    task: "required",
    advance: { everyMs: 1 },
    steps: (args) => [
      step.working("reading"),
      step.complete(structuredResult(args.reply as Record<string, unknown>)),
    ],
  });
}

/** The server's clock, whose timers (the task scripts' steps) run only when the test calls `tick()`. */
function heldClock(): { clock: Clock; tick(): void } {
  const held = new Map<number, () => void>();
  let next = 0;
  return {
    clock: {
      now: () => Date.now(),
      setTimeout: (callback) => (held.set(next, callback), next++),
      clearTimeout: (handle) => void held.delete(handle as number),
    },
    tick() {
      const due = [...held.values()];
      held.clear();
      for (const callback of due) callback();
    },
  };
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 10) {
    if (waited > 5000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let server: TaskServer | undefined;
let client: TaskClient | undefined;

/** Closes this test's client, then its server. */
function closingAfter(): void {
  onTestFinished(async () => {
    await client?.close();
    await server?.close();
    client = server = undefined;
  });
}

const transports = {
  "Streamable HTTP": async (clock: Clock) => {
    const http = await startTaskServer({ tools: [readLater("number")], clock });
    return { server: http, client: await TaskClient.connect(http.url, FAST) };
  },
  stdio: async (clock: Clock) => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const stdio = startStdioTaskServer({
      tools: [readLater("number")],
      clock,
      stdin: toServer,
      stdout: toClient,
    });
    return { server: stdio, client: await TaskClient.connect(new PipeTransport(toServer, toClient), FAST) };
  },
};

describe.each(Object.keys(transports) as (keyof typeof transports)[])("over %s", (transport) => {
  /** A task of `read_later` whose listen was acknowledged, the clock that moves it, and its listen's id. */
  async function following(reply: Record<string, unknown>) {
    const held = heldClock();
    closingAfter();
    ({ server, client } = await transports[transport](held.clock));
    const handle = client.callTool("read_later", { reply });
    const taskId = (await handle.created) as string;
    await until(() => (server as TaskServer).notifications.forMethod(ACKNOWLEDGED).length > 0, "the ack");
    const [listen] = server.requests.forMethod("subscriptions/listen");
    const listenId = (listen?.body as { id: string | number }).id;
    return { handle, taskId, listenId, tick: held.tick, server, client };
  }

  /** Ticks the server's clock until the task has ended. */
  async function finish(tick: () => void, taskId: string): Promise<void> {
    await until(() => {
      tick();
      return ["completed", "failed", "cancelled"].includes(String(server?.tasks.get(taskId)?.status));
    }, "the task to end");
  }

  const lists = () => server?.requests.forMethod("tools/list").length ?? 0;

  /** The type of `reading` in the client's `listTools()`. */
  async function typeOfReading(): Promise<string | undefined> {
    const [tool] = (await client?.listTools()) ?? [];
    return (tool?.outputSchema as { properties: { reading: { type: string } } }).properties.reading.type;
  }

  /** Waits until the client has heard the list_changed: its next `listTools()` has the new schema. */
  const heard = () =>
    until(async () => (await typeOfReading()) === "string", "the client to list the new schema");

  it("asks for toolsListChanged on its listen, and the server acknowledges it", async () => {
    const { taskId, listenId, server, tick } = await following({ reading: 1 });
    const [listen] = server.requests.forMethod("subscriptions/listen");
    expect((listen?.body as { params: Record<string, unknown> }).params["notifications"]).toEqual({
      taskIds: [taskId],
      toolsListChanged: true,
    });
    const [ack] = server.notifications.forMethod(ACKNOWLEDGED);
    expect(ack?.listenId).toBe(listenId);
    expect(ack?.params["notifications"]).toEqual({ taskIds: [taskId], toolsListChanged: true });
    await finish(tick, taskId);
  });

  it("drops its tool list on the listen's list_changed: the result is checked against the new outputSchema", async () => {
    const { handle, taskId, listenId, server, tick } = await following({ reading: "two" });
    expect(await typeOfReading()).toBe("number");
    expect(lists()).toBe(1);

    // The server changes the tool (readings are strings now) and says so on the listen.
    server.setTools([readLater("string")]);
    const [sent] = server.notifications.forMethod(TOOLS_CHANGED);
    expect(sent?.listenId).toBe(listenId);
    expect(sent?.params).toEqual({ _meta: { [SUBSCRIPTION_ID]: listenId } });

    // The client hears it: its next listTools() fetches the list again, once.
    await heard();
    expect(lists()).toBe(2);

    await finish(tick, taskId);
    expect(await handle.outcome()).toMatchObject({
      kind: "completed",
      result: { structuredContent: { reading: "two" } },
    });
    expect(lists()).toBe(2); // nothing was refused, so nothing was listed again
  });

  it("refuses a result that only the schema listed when the task began allows", async () => {
    const { handle, taskId, server, tick } = await following({ reading: 3 });
    expect(await typeOfReading()).toBe("number"); // the task's check comes from this list
    server.setTools([readLater("string")]);
    await heard();
    await finish(tick, taskId);
    const outcome = await handle.outcome();
    expect(outcome.kind).toBe("error");
    const error = (outcome as { error: unknown }).error as OutputSchemaError;
    expect(error).toBeInstanceOf(OutputSchemaError);
    expect(error.taskId).toBe(taskId);
    expect(error.problems[0]).toEqual({
      path: "/reading",
      message: 'Instance type "number" is invalid. Expected "string".',
    });
  });
});

describe("a TaskHost", () => {
  it("lists a server's tools again when the server's listen says they changed", async () => {
    const held = heldClock();
    closingAfter();
    const http = await startTaskServer({ tools: [readLater("number")], clock: held.clock });
    server = http;
    const host = await TaskHost.connect({ servers: { meter: http.url }, ...FAST });
    onTestFinished(() => host.close());
    const names = async () => (await host.listTools()).map((tool) => tool.qualifiedName);
    expect(await names()).toEqual(["meter__read_later"]);
    const handle = host.callTool("meter__read_later", { reply: { reading: 1 } });
    const taskId = (await handle.created) as string;
    await until(() => http.notifications.forMethod(ACKNOWLEDGED).length > 0, "the ack");

    const changed = new Promise((resolve) => host.once("tools", resolve));
    const calibrate = defineTool({ name: "calibrate", steps: [step.complete(textResult("calibrated"))] });
    http.setTools([readLater("number"), calibrate]);
    expect(await changed).toBe("meter");
    expect(await names()).toEqual(["meter__read_later", "meter__calibrate"]);
    expect(textOf(await host.callTool("meter__calibrate"))).toBe("calibrated");

    await until(() => {
      held.tick();
      return http.tasks.get(taskId)?.status === "completed";
    }, "the task to end");
    expect(await handle.outcome()).toMatchObject({ kind: "completed" });
  });
});

describe("a 2025-11-25 server", () => {
  it("announces setTools to its connections, whose next listTools() has the new tools", async () => {
    closingAfter();
    const http = await startTaskServer({ tools: [readLater("number")], era: "2025-11-25" });
    server = http;
    client = await TaskClient.connect(http.url, FAST);
    const schemaOf = async () => {
      const [tool] = await (client as TaskClient).listTools();
      return tool?.outputSchema;
    };
    expect(await schemaOf()).toMatchObject({ properties: { reading: { type: "number" } } });
    // The announcement goes out on the GET stream, which the client opens once it is connected.
    await until(() => http.requests.all().some((entry) => entry.httpMethod === "GET"), "the GET stream");
    http.setTools([readLater("string")]);
    expect(http.notifications.forMethod(TOOLS_CHANGED)).toHaveLength(1);
    await until(async () => {
      const schema = (await schemaOf()) as { properties: { reading: { type: string } } };
      if (schema.properties.reading.type === "string") return true;
      // The GET request is logged before the server's transport holds its stream: an announcement made in
      // between reaches nobody, so say it again until the client has heard.
      http.toolsChanged();
      return false;
    }, "the client to list the new schema");
    expect(http.requests.forMethod("tools/list").length).toBeGreaterThanOrEqual(2);
  });
});

describe("the stdio server", () => {
  it("announces setTools on a listen without taskIds too (the SDK serves it)", async () => {
    const toServer = new PassThrough();
    const toClient = new PassThrough();
    const stdio = startStdioTaskServer({ tools: [readLater("number")], stdin: toServer, stdout: toClient });
    server = stdio;
    closingAfter();
    const received: Record<string, unknown>[] = [];
    createInterface({ input: toClient }).on("line", (line) =>
      received.push(JSON.parse(line) as Record<string, unknown>),
    );
    const send = (message: object) => toServer.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    send({ id: 1, method: "server/discover", params: { _meta: envelope() } });
    await until(() => received.some((message) => message["id"] === 1), "the discover answer");
    expect(received[0]).toMatchObject({ result: { capabilities: { tools: { listChanged: true } } } });
    const filter = { toolsListChanged: true };
    send({
      id: "tools",
      method: "subscriptions/listen",
      params: { _meta: envelope(), notifications: filter },
    });
    await until(() => received.some((message) => message["method"] === ACKNOWLEDGED), "the ack");
    stdio.setTools([]);
    await until(() => received.some((message) => message["method"] === TOOLS_CHANGED), "the list_changed");
    expect(received.find((message) => message["method"] === TOOLS_CHANGED)).toEqual({
      jsonrpc: "2.0",
      method: TOOLS_CHANGED,
      params: { _meta: { [SUBSCRIPTION_ID]: "tools" } },
    });
  });
});

describe("a server that does not advertise tools.listChanged", () => {
  it("is not asked for toolsListChanged on a listen", async () => {
    closingAfter();
    const http = await startTaskServer({ tools: [readLater("number")], clock: heldClock().clock });
    server = http;
    // The real transport, except that server/discover's answer says nothing of listChanged.
    const transport = await resolveTransport(http.url);
    const quiet: McpTransport = new Proxy(transport, {
      set(target, property, value) {
        if (property !== "onmessage") return Reflect.set(target, property, value, target);
        const deliver = value as (message: unknown) => void;
        target.onmessage = (message: unknown) => {
          const tools = (message as { result?: { capabilities?: { tools?: object } } }).result?.capabilities
            ?.tools;
          if (tools !== undefined) delete (tools as { listChanged?: boolean }).listChanged;
          deliver(message);
        };
        return true;
      },
    });
    client = await TaskClient.connect(quiet, FAST);
    expect(client.server.discover?.capabilities.tools).toEqual({});
    const taskId = (await client.callTool("read_later", { reply: { reading: 1 } }).created) as string;
    await until(() => http.requests.forMethod("subscriptions/listen").length > 0, "the listen");
    const [listen] = http.requests.forMethod("subscriptions/listen");
    expect((listen?.body as { params: Record<string, unknown> }).params["notifications"]).toEqual({
      taskIds: [taskId],
    });
  });
});
