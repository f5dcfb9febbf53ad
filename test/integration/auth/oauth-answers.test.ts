/**
 * What an OAuth server (the protected resource's metadata, the authorization server's metadata) answers is held
 * to `maxMessageBytes` like the endpoint's answers: a loopback server on 127.0.0.1 refuses the token it is given
 * and answers the discovery that follows with a body past the limit, plain or compressed. The client reads no
 * further than the limit: the authorization server's metadata fails the connection with a `TransportError` of kind `too_large`
 * (the `AuthError`'s cause); the resource's metadata is not used (the SDK then asks the endpoint's origin, as it
 * does when a server has none), so the authorization server it names is never asked.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { AuthError, TaskClient, TransportError } from "mcp-tasks";
import { oauth } from "mcp-tasks/oauth";
import { tokenHolder } from "../transport/fixtures/hostile.js";

const LIMIT = 64 * 1024;
/** Far past the limit, but bounded. */
const SERVER_WRITES = 4 * 1024 * 1024;

let server: Server | undefined;
afterEach(async () => {
  const running = server;
  server = undefined;
  if (running === undefined) return;
  running.closeAllConnections();
  await new Promise<void>((resolve) => running.close(() => resolve()));
});

/** The body of a metadata document padded to `SERVER_WRITES` bytes with blanks (valid JSON all the same). */
function padded(document: unknown): Buffer {
  return Buffer.from(JSON.stringify(document) + " ".repeat(SERVER_WRITES));
}

const RESOURCE_METADATA = "/.well-known/oauth-protected-resource/mcp";
const AUTHORIZATION_SERVER_METADATA = "/.well-known/oauth-authorization-server";

/**
 * An MCP endpoint that refuses every token, naming its resource metadata; `oversized` says which of its OAuth
 * documents comes past the limit, and how. The resource's metadata names the authorization server `/as` (its
 * metadata at `/.well-known/oauth-authorization-server/as`); the origin is one too. `requested` lists the paths
 * asked for.
 */
async function refusingServer(
  oversized: { path: string; gzip: boolean },
  requested: string[],
): Promise<string> {
  const http = createServer((req, res) => {
    req.resume();
    requested.push(req.url ?? "");
    const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const authorizationServer = (issuer: string) => ({
      issuer,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
    });
    const documents: Record<string, unknown> = {
      [RESOURCE_METADATA]: { resource: `${origin}/mcp`, authorization_servers: [`${origin}/as`] },
      [AUTHORIZATION_SERVER_METADATA]: authorizationServer(origin),
      [`${AUTHORIZATION_SERVER_METADATA}/as`]: authorizationServer(`${origin}/as`),
    };
    if (req.url === "/mcp") {
      res
        .writeHead(401, {
          "www-authenticate": `Bearer error="invalid_token", resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        })
        .end();
      return;
    }
    const document = req.url === undefined ? undefined : documents[req.url];
    if (document === undefined) return void res.writeHead(404).end();
    if (req.url !== oversized.path) {
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(document));
    }
    const body = oversized.gzip ? gzipSync(padded(document)) : padded(document);
    res
      .writeHead(200, {
        "content-type": "application/json",
        "content-length": String(body.length),
        ...(oversized.gzip && { "content-encoding": "gzip" }),
      })
      .end(body);
  });
  server = http;
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

async function connectFailure(url: string): Promise<unknown> {
  return TaskClient.connect(url, { auth: oauth(tokenHolder()), maxMessageBytes: LIMIT }).then(
    async (client) => {
      await client.close();
      return undefined;
    },
    (error: unknown) => error,
  );
}

const ENCODINGS = [
  ["as is", false],
  ["in gzip (its Content-Length within the limit)", true],
] as const;

describe("the authorization server's metadata past maxMessageBytes", () => {
  it.each(ENCODINGS)(
    "%s fails the connection with a TransportError of kind too_large",
    async (_how, gzip) => {
      const requested: string[] = [];
      const url = await refusingServer({ path: `${AUTHORIZATION_SERVER_METADATA}/as`, gzip }, requested);
      const failure = await connectFailure(url);
      expect(failure).toBeInstanceOf(AuthError);
      const causes: unknown[] = [];
      for (let cause: unknown = failure; cause instanceof Error; cause = cause.cause) causes.push(cause);
      const tooLarge = causes.find((cause) => cause instanceof TransportError && cause.kind === "too_large");
      expect((tooLarge as TransportError | undefined)?.limitBytes, String(failure)).toBe(LIMIT);
    },
  );
});

describe("the protected resource's metadata past maxMessageBytes", () => {
  it.each(ENCODINGS)("%s is not read, nor the authorization server it names asked", async (_how, gzip) => {
    const requested: string[] = [];
    const url = await refusingServer({ path: RESOURCE_METADATA, gzip }, requested);
    const failure = await connectFailure(url);
    expect(failure).toBeInstanceOf(AuthError);
    expect(requested).toContain(RESOURCE_METADATA);
    expect(requested).not.toContain(`${AUTHORIZATION_SERVER_METADATA}/as`);
  });
});
