/**
 * `login --scope` makes the OAuth requests itself (the SDK's `auth()`), and what the authorization server answers
 * is held to the default `maxMessageBytes` (16 MiB, counted decoded) there too: a loopback server on 127.0.0.1
 * answers its metadata request with 16 MiB and 1 KiB of JSON sent as a few kB of gzip, and the login fails at the
 * limit (exit 8, saying so) instead of reading on.
 */
import { rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli, cliHome, stateDir } from "./harness.js";

let hostile: Server;
let url: string;
let state: ReturnType<typeof stateDir>;
let config: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ({ state, config, env } = cliHome());
  hostile = createServer((req, res) => {
    req.resume();
    const origin = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
    if (req.url === "/mcp") {
      res
        .writeHead(401, {
          "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
        })
        .end();
    } else if (req.url?.startsWith("/.well-known/oauth-protected-resource")) {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ resource: `${origin}/mcp`, authorization_servers: [origin] }));
    } else if (req.url === "/.well-known/oauth-authorization-server") {
      const metadata = {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ["code"],
        code_challenge_methods_supported: ["S256"],
      };
      const body = gzipSync(Buffer.from(JSON.stringify(metadata) + " ".repeat(16 * 1024 * 1024 + 1024)));
      res
        .writeHead(200, {
          "content-type": "application/json",
          "content-encoding": "gzip",
          "content-length": String(body.length),
        })
        .end(body);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  hostile.closeAllConnections();
  await new Promise<void>((resolve) => hostile.close(() => resolve()));
  state.remove();
  rmSync(config, { recursive: true, force: true });
});

it("login --scope fails at the limit when the authorization server's metadata passes 16 MiB once decoded", async () => {
  const run = await runCli(["login", url, "--scope", "tasks:read", "--no-browser", "--timeout", "3s"], env);
  expect(run.code).toBe(8);
  expect(run.stderr).toContain(`cannot log in to ${url}`);
  expect(run.stderr).toContain("larger than 16777216 bytes (maxMessageBytes)");
});
