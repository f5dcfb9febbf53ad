/**
 * Qualified tool names of a host: `server__tool` within `^[a-zA-Z0-9_-]{1,64}$`, long names cut with a stable
 * hash, and two tools under one name refused with both named.
 */
import { describe, expect, it } from "vitest";
import { defaultToolName, nameTools } from "../../../src/host/naming.js";

describe("defaultToolName", () => {
  it("joins server and tool with a double underscore", () => {
    expect(defaultToolName("github", "create_issue")).toBe("github__create_issue");
  });

  it("replaces characters outside [a-zA-Z0-9_-] with an underscore", () => {
    expect(defaultToolName("my server", "tool.v2/run")).toBe("my_server__tool_v2_run");
  });

  it("cuts a name over 64 characters and ends it with a stable hash of the unchanged names", () => {
    const name = defaultToolName("s", "t".repeat(100));
    expect(name).toHaveLength(64);
    expect(name).toMatch(/^s__t{52}_[0-9a-f]{8}$/);
    expect(defaultToolName("s", "t".repeat(100))).toBe(name);
    expect(defaultToolName("s", `${"t".repeat(99)}u`)).not.toBe(name);
  });

  it("keeps a name of exactly 64 characters whole", () => {
    const tool = "x".repeat(61);
    expect(defaultToolName("s", tool)).toBe(`s__${tool}`);
  });
});

describe("nameTools", () => {
  it("indexes every tool by its qualified name", () => {
    const index = nameTools([
      { server: "a", tool: "echo" },
      { server: "b", tool: "echo" },
    ]);
    expect([...index]).toEqual([
      ["a__echo", { server: "a", tool: "echo" }],
      ["b__echo", { server: "b", tool: "echo" }],
    ]);
  });

  it("refuses two tools that map to one name, naming both", () => {
    expect(() =>
      nameTools([
        { server: "a", tool: "run.job" },
        { server: "a", tool: "run_job" },
      ]),
    ).toThrow(
      'TaskHost: tool "run.job" of server "a" and tool "run_job" of server "a" both map to "a__run_job"; give the host a `toolName` option that tells them apart',
    );
  });

  it("uses a toolName rule in place of the default, and checks what it returns", () => {
    expect([
      ...nameTools([{ server: "a", tool: "echo" }], (server, tool) => `${tool}-${server}`).keys(),
    ]).toEqual(["echo-a"]);
    expect(() => nameTools([{ server: "a", tool: "echo" }], () => "has space")).toThrow(
      'TaskHost: toolName("a", "echo") gave "has space", which does not match /^[a-zA-Z0-9_-]{1,64}$/',
    );
    expect(() =>
      nameTools(
        [
          { server: "a", tool: "echo" },
          { server: "b", tool: "echo" },
        ],
        (_server, tool) => tool,
      ),
    ).toThrow('tool "echo" of server "a" and tool "echo" of server "b" both map to "echo"');
  });
});
