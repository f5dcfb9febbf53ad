import { describe, expect, it } from "vitest";
import { eraPartsFor } from "../../../src/eras/era-parts.js";
import { UnsupportedError } from "../../../src/protocol/errors.js";
import { resolveRetryTiming } from "../../../src/scheduler/timing.js";
import type { ReplyChannel, ServerInfo } from "../../../src/session/types.js";
import type { ToolSchemas } from "../../../src/tools/catalog.js";

const channel: ReplyChannel = {
  request: () => Promise.reject(new Error("nothing may be sent")),
  requestFor: () => {
    throw new Error("nothing may be sent");
  },
  notify: async () => undefined,
  onNotification: () => () => undefined,
};
const tools: ToolSchemas = {
  tool: async () => undefined,
  cached: () => undefined,
  refresh: async () => undefined,
};
const parts = (server: ServerInfo) =>
  eraPartsFor(channel, server, tools, {
    retry: resolveRetryTiming({}),
    warn: () => undefined,
    legacyTasks: "auto",
    now: () => 0,
  });

describe("which task entry points a server supports", () => {
  it("refuses them on a 2026 server whose discover result lacks the extension, naming it", () => {
    const server: ServerInfo = {
      era: "modern",
      protocolVersion: "2026-07-28",
      supportsTasks: false,
      discover: { supportedVersions: ["2026-07-28"], capabilities: {} } as ServerInfo["discover"] & object,
    };
    const refusal = parts(server).tasks.unsupported("TaskClient.task");
    expect(refusal).toBeInstanceOf(UnsupportedError);
    expect(refusal?.message).toContain("io.modelcontextprotocol/tasks");
  });

  it("refuses nothing when it cannot know (a shared SDK Client without a discover result)", () => {
    const server: ServerInfo = { era: "modern", protocolVersion: "2026-07-28", supportsTasks: false };
    expect(parts(server).tasks.unsupported("TaskClient.task")).toBeUndefined();
  });

  it("refuses every tasks/* on a 2025 server without capabilities.tasks, before sending anything", async () => {
    const server: ServerInfo = {
      era: "legacy",
      protocolVersion: "2025-11-25",
      supportsTasks: false,
      capabilities: {},
    };
    const { tasks } = parts(server);
    expect(tasks.unsupported("TaskClient.cancel")?.missing).toBe("tasks (capabilities.tasks)");
    await expect(tasks.get("t")).rejects.toBeInstanceOf(UnsupportedError);
    await expect(tasks.cancel("t", undefined)).rejects.toBeInstanceOf(UnsupportedError);
  });
});
