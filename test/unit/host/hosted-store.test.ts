/**
 * How a host files its servers' refs in one shared store: under the server's config name and its URL or stdio
 * command and arguments, so two servers that look alike to a client (one URL, or one `serverInfo` name over
 * stdio) never see each other's refs, and each client gets its refs back naming its server as it knows it.
 */
import { describe, expect, it } from "vitest";
import type { TaskRef } from "mcp-tasks";
import { memoryStore } from "mcp-tasks/store";
import { hostedServerOf, hostedStore, targetIdentity } from "../../../src/host/hosted-store.js";

const here: TaskRef["server"] = { name: "files", version: "1.0.0", protocolVersion: "2026-07-28" };

function refOf(taskId: string): TaskRef {
  return { v: 1, taskId, server: here, method: "tools/call", toolName: "copy", answeredInputKeys: [] };
}

describe("a shared store seen by each server of a host", () => {
  it("keeps two stdio servers with one serverInfo name apart, by config name and command", async () => {
    const store = memoryStore();
    const npx = targetIdentity({ command: "npx", args: ["-y", "@example/files"] });
    expect(npx).toBe('["npx","-y","@example/files"]');
    const work = hostedStore(store, { name: "work", target: npx });
    const home = hostedStore(store, { name: "home", target: npx });
    const other = hostedStore(store, {
      name: "work",
      target: targetIdentity({ command: "npx", args: ["x"] }),
    });
    await work.put(refOf("t-work"));
    await home.put(refOf("t-home"));

    expect(await work.list(here)).toEqual([refOf("t-work")]);
    expect(await home.list(here)).toEqual([refOf("t-home")]);
    expect(await other.list(here)).toEqual([]);
    const stored = await store.list();
    expect(stored.map(hostedServerOf)).toEqual([
      { name: "work", target: npx },
      { name: "home", target: npx },
    ]);
  });

  it("names a URL server by its normalised URL; removing goes through the same filing", async () => {
    expect(targetIdentity("HTTP://Example.com:80/mcp")).toBe("http://example.com/mcp");
    const store = memoryStore();
    const view = hostedStore(store, { name: "api", target: targetIdentity("https://example.com/mcp") });
    await view.put(refOf("t-1"));
    await view.remove(refOf("t-1"));
    expect(await store.list()).toEqual([]);
  });
});
