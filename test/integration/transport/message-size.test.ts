/**
 * Decision 17: how much one message from the server may hold (`maxMessageBytes`). The real client against the
 * reference server behind the fault proxy, which answers `tools/call` with bytes no end of which comes: one SSE
 * line that never ends, a JSON body larger than the limit (with and without `Content-Length`); through our
 * transport and through the OAuth path; a compressed body (gzip, deflate, br) whose `Content-Length` fits the limit
 * but whose text does not (what is bounded is what `fetch` decodes, counted as it arrives); and a stdio server
 * whose output line never ends. Each fails with
 * a `TransportError` of kind `too_large` as soon as the limit is passed, instead of reading on (the limit is small here to keep
 * the tests cheap; the default is 16 MiB).
 */
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RpcError, TaskClient, TransportError, type TaskClientOptions } from "mcp-tasks";
import { oauth } from "mcp-tasks/oauth";
import { startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";
import { startFaultProxy, type FaultProxy } from "../lifecycle/fault-proxy.js";
import { closesAfterEach } from "../lifecycle/helpers.js";
import { endlessLine, idOf, tokenHolder } from "./fixtures/hostile.js";
import { transportFailure } from "../../fixtures/errors.js";

const LIMIT = 64 * 1024;
/** What the server is ready to send at most: far past the limit, but bounded. */
const SERVER_WRITES = 4 * 1024 * 1024;

let server: HttpTaskServer;
beforeAll(async () => {
  server = await startTaskServer();
});
afterAll(() => server.close());

const track = closesAfterEach();

async function connect(options: TaskClientOptions = {}): Promise<{ proxy: FaultProxy; client: TaskClient }> {
  const proxy = track(await startFaultProxy(server.url));
  const client = track(await TaskClient.connect(proxy.url, { maxMessageBytes: LIMIT, ...options }));
  return { proxy, client };
}

/** A valid answer to `id` whose text makes the body `bytes` long, or about. */
function bigAnswer(id: unknown, bytes: number): string {
  const text = "y".repeat(bytes);
  return JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } });
}

const failureOf = (client: TaskClient) =>
  client.callTool("greet", { name: "Ada" }, { timeoutMs: 10_000 }).then(
    () => undefined,
    (error: unknown) => error,
  );

describe.each([
  ["our transport", {}],
  ["the OAuth path", { auth: oauth(tokenHolder()) }],
] as const)("through %s, a tools/call answer", (_path, options) => {
  it("whose SSE line never ends fails with a too_large TransportError at the limit", async () => {
    const { proxy, client } = await connect(options);
    proxy.fault("tools/call", {
      respond: (res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        endlessLine(res, "data: ", SERVER_WRITES);
      },
    });
    const failure = await failureOf(client);
    expect(failure).toSatisfy(transportFailure("too_large"));
    expect(failure).toMatchObject({ limitBytes: LIMIT, transient: false });
    expect((failure as Error).message).toContain("tools/call");
  });

  it.each([
    ["without Content-Length", false],
    ["with Content-Length", true],
  ])(
    "in a JSON body larger than the limit, %s, fails with a too_large TransportError",
    async (_how, declared) => {
      const { proxy, client } = await connect(options);
      proxy.fault("tools/call", {
        respond: (res, request) => {
          const body = bigAnswer(idOf(request), 2 * LIMIT);
          const length = declared ? { "content-length": String(Buffer.byteLength(body)) } : {};
          res.writeHead(200, { "content-type": "application/json", ...length }).end(body);
        },
      });
      const failure = await failureOf(client);
      expect(failure).toSatisfy(transportFailure("too_large"));
      expect(failure).toMatchObject({ limitBytes: LIMIT });
    },
  );
});

/** The encodings `fetch` undoes on its own, and how a server makes them. */
const ENCODINGS = [
  ["gzip", gzipSync],
  ["deflate", deflateSync],
  ["br", brotliCompressSync],
] as const;

describe.each([
  ["our transport", {}],
  ["the OAuth path", { auth: oauth(tokenHolder()) }],
] as const)("through %s, a compressed body", (_path, options) => {
  // What limits is the text the client reads, not the bytes on the wire: 4 MiB of text are a few kB of gzip.
  it.each(ENCODINGS)(
    "in %s, whose Content-Length fits the limit but whose text does not, fails with a too_large TransportError",
    async (coding, encode) => {
      const { proxy, client } = await connect(options);
      proxy.fault("tools/call", {
        respond: (res, request) => {
          const body = encode(Buffer.from(bigAnswer(idOf(request), SERVER_WRITES)));
          expect(body.length).toBeLessThan(LIMIT);
          res
            .writeHead(200, {
              "content-type": "application/json",
              "content-encoding": coding,
              "content-length": String(body.length),
            })
            .end(body);
        },
      });
      const failure = await failureOf(client);
      expect(failure).toSatisfy(transportFailure("too_large"));
      expect(failure).toMatchObject({ limitBytes: LIMIT });
    },
  );

  it("in gzip, an SSE event larger than the limit fails with a too_large TransportError", async () => {
    const { proxy, client } = await connect(options);
    proxy.fault("tools/call", {
      respond: (res, request) => {
        const event = `event: message\ndata: ${bigAnswer(idOf(request), SERVER_WRITES)}\n\n`;
        const body = gzipSync(Buffer.from(event));
        res.writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" }).end(body);
      },
    });
    const failure = await failureOf(client);
    expect(failure).toSatisfy(transportFailure("too_large"));
    expect(failure).toMatchObject({ limitBytes: LIMIT });
  });

  it("and a compressed text within the limit is read as always", async () => {
    const { proxy, client } = await connect(options);
    proxy.fault("tools/call", {
      respond: (res, request) => {
        const body = gzipSync(Buffer.from(bigAnswer(idOf(request), LIMIT - 200)));
        res
          .writeHead(200, {
            "content-type": "application/json",
            "content-encoding": "gzip",
            "content-length": String(body.length),
          })
          .end(body);
      },
    });
    const result = await client.callTool("greet", { name: "Ada" });
    expect(result.content).toHaveLength(1);
  });
});

it("a compressed error body past the limit is not read: the status decides, not the JSON-RPC error in it", async () => {
  const { proxy, client } = await connect();
  proxy.fault("tools/call", {
    respond: (res, request) => {
      const error = { code: -32602, message: "refused" };
      // A small JSON-RPC error followed by 4 MiB of blanks: valid JSON, whatever reads all of it.
      const text = JSON.stringify({ jsonrpc: "2.0", id: idOf(request), error }) + " ".repeat(SERVER_WRITES);
      const body = gzipSync(Buffer.from(text));
      res
        .writeHead(400, {
          "content-type": "application/json",
          "content-encoding": "gzip",
          "content-length": String(body.length),
        })
        .end(body);
    },
  });
  const failure = await failureOf(client);
  expect(failure).not.toBeInstanceOf(RpcError);
  expect(failure).toBeInstanceOf(TransportError);
  expect(failure).toMatchObject({ status: 400 });
});

it("a JSON answer within the limit is read as always", async () => {
  const { proxy, client } = await connect();
  proxy.fault("tools/call", {
    respond: (res, request) =>
      res.writeHead(200, { "content-type": "application/json" }).end(bigAnswer(idOf(request), LIMIT - 200)),
  });
  const result = await client.callTool("greet", { name: "Ada" });
  expect(result.content).toHaveLength(1);
});

describe("over stdio", () => {
  it("a server whose output line never ends fails connect() with a too_large TransportError, not a story about exiting", async () => {
    // Answers the first line it reads (the server/discover probe) with one line that never ends.
    const script = [
      "process.stdin.once('data', () => {",
      "  const kib = 'x'.repeat(1024); let sent = 0;",
      '  process.stdout.write(\'{"jsonrpc":"2.0","id":1,"result":{"pad":"\');',
      `  const more = () => { while (sent < ${SERVER_WRITES}) { sent += 1024; if (!process.stdout.write(kib)) return void process.stdout.once('drain', more); } };`,
      "  more();",
      "});",
      "setTimeout(() => undefined, 60_000);",
    ].join("\n");
    const failure = await TaskClient.connect(
      { command: process.execPath, args: ["-e", script] },
      { maxMessageBytes: LIMIT },
    ).then(
      async (client) => {
        await client.close();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(failure).toSatisfy(transportFailure("too_large"));
    expect(failure).toMatchObject({ limitBytes: LIMIT });
    expect((failure as Error).message).toContain("server/discover");
  });
});

describe("the option", () => {
  it.each([
    ["our transport", {}],
    ["the OAuth path", { auth: oauth(tokenHolder()) }],
  ] as const)(
    "defaults to 16 MiB: through %s, an answer of 16 MiB and 1 KiB fails with a too_large TransportError",
    async (_path, options) => {
      const proxy = track(await startFaultProxy(server.url));
      const client = track(await TaskClient.connect(proxy.url, options));
      // Compressed, so 16 MiB of text cost a few kB on the loopback.
      const answer = gzipSync(Buffer.from(" ".repeat(16 * 1024 * 1024 + 1024)));
      proxy.fault("tools/call", {
        respond: (res) =>
          res
            .writeHead(200, {
              "content-type": "application/json",
              "content-encoding": "gzip",
              "content-length": String(answer.length),
            })
            .end(answer),
      });
      const failure = await failureOf(client);
      expect(failure).toSatisfy(transportFailure("too_large"));
      expect(failure).toMatchObject({ limitBytes: 16_777_216 });
    },
  );

  it("must be a positive whole number of bytes", async () => {
    await expect(TaskClient.connect(server.url, { maxMessageBytes: 0 })).rejects.toThrow(RangeError);
    await expect(TaskClient.connect(server.url, { maxMessageBytes: 1.5 })).rejects.toThrow(RangeError);
  });
});
