/**
 * One server entry of `TaskHost.connect` as the `TaskClient.connect` call it becomes: the host's shared options
 * are defaults that the server's own options override; HTTP-only shared options reach URL servers only.
 */
import { describe, expect, it } from "vitest";
import type { TaskClientOptions } from "mcp-tasks";
import { serverConnect } from "../../../src/host/servers.js";

const shared: TaskClientOptions = {
  headers: { "X-Team": "research" },
  polling: { maxIntervalMs: 5_000 },
  maxInFlight: 8,
};

describe("serverConnect", () => {
  it("gives a bare URL the shared options", () => {
    expect(serverConnect("a", "https://a.example/mcp", shared)).toEqual({
      target: "https://a.example/mcp",
      options: shared,
    });
  });

  it("lets a server's own options override the shared ones", () => {
    expect(
      serverConnect(
        "a",
        { url: "https://a.example/mcp", polling: { maxIntervalMs: 100 }, headers: { "X-Own": "1" } },
        shared,
      ),
    ).toEqual({
      target: "https://a.example/mcp",
      options: { headers: { "X-Own": "1" }, polling: { maxIntervalMs: 100 }, maxInFlight: 8 },
    });
  });

  it("splits a stdio entry into its command and its options, leaving out shared headers and auth", () => {
    expect(
      serverConnect(
        "files",
        { command: "npx", args: ["-y", "server"], env: { K: "v" }, maxInFlight: 2 },
        shared,
      ),
    ).toEqual({
      target: { command: "npx", args: ["-y", "server"], env: { K: "v" } },
      options: { polling: { maxIntervalMs: 5_000 }, maxInFlight: 2 },
    });
  });

  it("refuses an entry that is neither a target nor a server with url or command", () => {
    expect(() => serverConnect("odd", { cwd: "/tmp" } as never, shared)).toThrow(
      'TaskHost: server "odd" needs a `url`, a `command`, or to be an MCP transport',
    );
    expect(() => serverConnect("odd", 42 as never, shared)).toThrow(
      'TaskHost: server "odd" must be a URL, a command or an object',
    );
  });
});
