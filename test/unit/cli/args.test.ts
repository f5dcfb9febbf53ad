import { describe, expect, it } from "vitest";
import { readDuration, readInvocation, readToolArguments } from "../../../src/cli/args.js";
import { defaultStoreDir } from "../../../src/cli/cli-store.js";
import { UsageError } from "../../../src/cli/exit-codes.js";

describe("the mcp-tasks command line", () => {
  it("merges JSON, key=value (JSON when it parses) and @file arguments left to right", () => {
    const files: Record<string, string> = { "args.json": '{"label":"from file","n":1}' };
    const args = readToolArguments(
      ['{"seconds":5,"label":"json"}', "@args.json", "n=2", "flag=true", "name=Ada", "list=[1,2]"],
      (path) => files[path] ?? "",
    );
    expect(args).toEqual({ seconds: 5, label: "from file", n: 2, flag: true, name: "Ada", list: [1, 2] });
  });

  it.each([['{"seconds":'], ["[1,2]"], ["justaword"], ["=value"]])("refuses %s as a usage error", (word) => {
    expect(() => readToolArguments([word])).toThrow(UsageError);
  });

  it("reads durations with units, a bare number as seconds", () => {
    expect([
      readDuration("30s"),
      readDuration("500ms"),
      readDuration("2m"),
      readDuration("1h"),
      readDuration("5"),
    ]).toEqual([30_000, 500, 120_000, 3_600_000, 5_000]);
    expect(() => readDuration("soon")).toThrow(UsageError);
  });

  it("takes everything after `--` as the stdio server command, options included", () => {
    const invocation = readInvocation([
      "call",
      "greet",
      "name=x",
      "--json",
      "--",
      "node",
      "server.js",
      "--stdio",
    ]);
    expect(invocation).toMatchObject({
      command: "call",
      operands: ["greet", "name=x"],
      stdio: ["node", "server.js", "--stdio"],
    });
    expect(invocation.options.json).toBe(true);
  });

  it("refuses unknown options and a bad --unanswered policy", () => {
    expect(() => readInvocation(["ls", "--bogus"])).toThrow(UsageError);
    expect(() => readInvocation(["ls", "--unanswered", "ignore"])).toThrow(UsageError);
  });

  it("puts the store under XDG_STATE_HOME, else the platform's state directory", () => {
    expect(defaultStoreDir({ XDG_STATE_HOME: "/x" }, "linux", "/home/u")).toBe("/x/mcp-tasks");
    expect(defaultStoreDir({}, "linux", "/home/u")).toBe("/home/u/.local/state/mcp-tasks");
    expect(defaultStoreDir({}, "darwin", "/Users/u")).toBe("/Users/u/Library/Application Support/mcp-tasks");
  });
});
