import { describe, expect, it } from "vitest";
import { ToolCatalog } from "../../../src/tools/catalog.js";
import type { RpcChannel } from "../../../src/session/types.js";

/** A channel that answers tools/list from `pages` (by cursor) and can push notifications. */
function channelOf(pages: (cursor: string | undefined) => Record<string, unknown>) {
  const calls: Array<string | undefined> = [];
  let listener: ((method: string, params: Record<string, unknown>) => void) | undefined;
  const channel: RpcChannel = {
    request: async (method, params) => {
      expect(method).toBe("tools/list");
      const cursor = params.cursor as string | undefined;
      calls.push(cursor);
      return pages(cursor);
    },
    notify: async () => undefined,
    onNotification: (next) => {
      listener = next;
      return () => (listener = undefined);
    },
  };
  return { channel, calls, push: (method: string) => listener?.(method, {}) };
}

const tool = (name: string) => ({ name, inputSchema: { type: "object" } });
const quiet = { checkParamHeaders: true, warn: () => undefined };

describe("ToolCatalog", () => {
  it("reads every page, then answers from its cache", async () => {
    const { channel, calls } = channelOf((cursor) =>
      cursor === undefined ? { tools: [tool("a")], nextCursor: "p2" } : { tools: [tool("b")] },
    );
    const catalog = new ToolCatalog(channel, quiet);
    expect((await catalog.list()).map((entry) => entry.name)).toEqual(["a", "b"]);
    expect(await catalog.tool("b")).toMatchObject({ name: "b" });
    expect(catalog.cached("a")).toMatchObject({ name: "a" });
    expect(calls).toEqual([undefined, "p2"]);
  });

  it("fetches again after notifications/tools/list_changed", async () => {
    let version = 1;
    const { channel, calls, push } = channelOf(() => ({ tools: [tool(`v${version}`)] }));
    const catalog = new ToolCatalog(channel, quiet);
    expect((await catalog.list()).map((entry) => entry.name)).toEqual(["v1"]);
    version = 2;
    push("notifications/tools/list_changed");
    expect(catalog.cached("v1")).toBeUndefined();
    expect((await catalog.list()).map((entry) => entry.name)).toEqual(["v2"]);
    expect(calls).toHaveLength(2);
  });

  it("stops after 100 pages of a server that never stops paging, and says so", async () => {
    const warnings: string[] = [];
    let page = 0;
    const { channel, calls } = channelOf(() => ({ tools: [tool(`t${page}`)], nextCursor: `c${++page}` }));
    const catalog = new ToolCatalog(channel, { checkParamHeaders: false, warn: (m) => warnings.push(m) });
    expect(await catalog.list()).toHaveLength(100);
    expect(calls).toHaveLength(100);
    expect(warnings.join("\n")).toMatch(/stopped after 100 pages/);
  });

  it("does not keep a failed fetch, and skips an entry without a name with a warning", async () => {
    const warnings: string[] = [];
    let fail = true;
    const channel: RpcChannel = {
      request: async () => {
        if (fail) throw new Error("connection reset");
        return { tools: [{ description: "no name" }, tool("ok")] };
      },
      notify: async () => undefined,
      onNotification: () => () => undefined,
    };
    const catalog = new ToolCatalog(channel, { checkParamHeaders: false, warn: (m) => warnings.push(m) });
    await expect(catalog.list()).rejects.toThrow("connection reset");
    fail = false;
    expect((await catalog.list()).map((entry) => entry.name)).toEqual(["ok"]);
    expect(warnings.join("\n")).toMatch(/without a name/);
  });

  it("refuses an answer without a tools array with a ProtocolError", async () => {
    const { channel } = channelOf(() => ({ nextCursor: "x" }));
    await expect(new ToolCatalog(channel, quiet).list()).rejects.toMatchObject({ name: "ProtocolError" });
  });
});
