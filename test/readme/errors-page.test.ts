/**
 * docs/errors.md lists every error class the package exports, each under a heading of its own (`### \`Name\``),
 * so a new class cannot ship undocumented. The classes are found by what the entries export, not by a list kept
 * here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as mcpTasks from "mcp-tasks";
import * as store from "mcp-tasks/store";
import * as testing from "mcp-tasks/testing";
import { anchorsOf } from "./links.js";
import { ROOT } from "./snippets.js";

/** The names of the Error subclasses among a module's exports. */
function errorClasses(entry: Record<string, unknown>): string[] {
  return Object.entries(entry)
    .filter(([, value]) => typeof value === "function" && value.prototype instanceof Error)
    .map(([name]) => name)
    .sort();
}

const page = readFileSync(join(ROOT, "docs/errors.md"), "utf8");

describe("docs/errors.md", () => {
  it("has a section for every error class mcp-tasks and mcp-tasks/store export", () => {
    const classes = [...new Set([...errorClasses(mcpTasks), ...errorClasses(store)])];
    expect(classes).toEqual(expect.arrayContaining(["McpTasksError", "TaskFailedError", "StoreLockedError"]));
    const anchors = anchorsOf(page);
    expect(classes.filter((name) => !anchors.has(name.toLowerCase()))).toEqual([]);
  });

  it("names every error class mcp-tasks/testing exports", () => {
    const classes = errorClasses(testing);
    expect(classes.length).toBeGreaterThan(0);
    expect(classes.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });
});
