import { describe, expect, it } from "vitest";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StreamableHttpTransport } from "../../../src/session/streamable-http.js";
import { resolveTransport, type ConnectTarget } from "../../../src/session/targets.js";
import { FakeTransport } from "./fake-transport.js";

describe("resolving a connect target", () => {
  it("makes our own Streamable HTTP transport for a URL string or URL object", async () => {
    expect(await resolveTransport("http://127.0.0.1:9/mcp")).toBeInstanceOf(StreamableHttpTransport);
    expect(await resolveTransport(new URL("https://example.com/mcp"))).toBeInstanceOf(
      StreamableHttpTransport,
    );
  });

  it("makes a stdio transport for a command, without starting it", async () => {
    const transport = await resolveTransport({ command: "node", args: ["server.js"], env: { A: "1" } });
    expect(transport).toBeInstanceOf(StdioClientTransport);
    expect((transport as StdioClientTransport).pid).toBeNull();
  });

  it("uses a transport it is given as it is", async () => {
    const transport = new FakeTransport();
    expect(await resolveTransport(transport)).toBe(transport);
  });

  it.each([
    ["a URL that is not http(s)", "ftp://example.com/mcp"],
    ["text that is not a URL", "not a url"],
    ["an object that is neither", { url: "http://x" }],
  ])("refuses %s with a TypeError", async (_what, target) => {
    await expect(resolveTransport(target as ConnectTarget)).rejects.toBeInstanceOf(TypeError);
  });
});
