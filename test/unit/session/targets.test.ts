import { describe, expect, it } from "vitest";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StreamableHttpTransport } from "../../../src/session/streamable-http.js";
import { resolveTransport, type ConnectTarget } from "../../../src/session/targets.js";
import { FakeTransport } from "./fake-transport.js";
import type { AuthPlugin } from "../../../src/auth/connection-auth.js";
import { messageTooLarge } from "../../../src/protocol/errors.js";
import { buildHttpTransport } from "../../../src/session/http-transport.js";

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

describe("the record of why a response stream failed (the OAuth path's size limit)", () => {
  it("is each connection's own: what one notes, only it gives back, once", async () => {
    const noted: Array<(id: string | number, error: Error) => void> = [];
    // An authorization plug-in that notes as the OAuth one does, over a transport that does nothing.
    const auth: AuthPlugin = {
      kind: "oauth",
      transport: async (parts) => {
        noted.push(parts.bounds.noteStreamFailure);
        return new FakeTransport();
      },
    };
    const first = await buildHttpTransport(new URL("http://127.0.0.1:9/mcp"), { auth });
    const second = await buildHttpTransport(new URL("http://127.0.0.1:9/mcp"), { auth });
    const tooLarge = messageTooLarge("tools/call: an SSE event from the server", 1024);
    noted[0]?.("req-1", tooLarge);
    expect(second.takeStreamFailure?.("req-1")).toBeUndefined();
    expect(first.takeStreamFailure?.("req-1")).toBe(tooLarge);
    expect(first.takeStreamFailure?.("req-1")).toBeUndefined();
  });
});
