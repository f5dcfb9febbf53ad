/**
 * A TaskClient against the reference server over stdio: `TaskClient.connect({ command, args })` starts
 * `bin/mcp-tasks-server.js --stdio` as a child process (the launcher runs the TypeScript source through tsx), and
 * every conformance fixture behaves as it does over HTTP.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskClient } from "mcp-tasks";
import { TIME_SCALE, fastClient, fixtureCallTests, textOf } from "./fixture-calls.js";

const BIN = fileURLToPath(new URL("../../../bin/mcp-tasks-server.js", import.meta.url));

describe("over stdio, with the server as a child process", () => {
  let client: TaskClient;
  beforeAll(async () => {
    client = await TaskClient.connect(
      { command: process.execPath, args: [BIN, "--stdio", "--time-scale", String(TIME_SCALE)] },
      fastClient,
    );
  });
  afterAll(async () => {
    await client?.close();
  });

  it("negotiates 2026-07-28 with the tasks extension", () => {
    expect(client.server).toMatchObject({
      era: "modern",
      protocolVersion: "2026-07-28",
      supportsTasks: true,
      serverInfo: { name: "mcp-tasks-reference-server" },
    });
  });

  fixtureCallTests(() => client);

  it("runs several tasks at once over the one pipe", async () => {
    const labels = ["a", "b", "c", "d"];
    const results = await Promise.all(
      labels.map((label) => client.callTool("slow_compute", { seconds: 1, label })),
    );
    expect(results.map(textOf)).toEqual(labels.map((label) => `Computed "${label}" in 1s`));
  });
});
