/**
 * The command's private files: a file the group may read or write counts as shared, as one anybody may; so does a
 * directory the group may enter. Only the owner's bits may be set (0600 files, 0700 directories).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NotPrivateError, privateDirectory, readPrivateFile } from "../../../src/cli/private-files.js";

const posix = process.platform !== "win32";
const made: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-private-"));
  made.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(posix)("readPrivateFile", () => {
  it.each([
    ["0640", 0o640],
    ["0660", 0o660],
    ["0620", 0o620],
    ["0604", 0o604],
    ["0606", 0o606],
    ["0644", 0o644],
  ])("refuses a file of mode %s", (shown, bits) => {
    const path = join(tempDir(), "credentials.json");
    writeFileSync(path, "{}", { mode: 0o600 });
    chmodSync(path, bits);
    expect(() => readPrivateFile(path)).toThrow(NotPrivateError);
    expect(() => readPrivateFile(path)).toThrow(`(mode ${shown}, not 0600)`);
  });

  it.each([
    ["0600", 0o600],
    ["0400", 0o400],
  ])("reads a file of mode %s", (_shown, bits) => {
    const path = join(tempDir(), "credentials.json");
    writeFileSync(path, "{}", { mode: 0o600 });
    chmodSync(path, bits);
    expect(readPrivateFile(path)).toBe("{}");
  });
});

describe.runIf(posix)("privateDirectory", () => {
  it.each([
    ["0750", 0o750],
    ["0770", 0o770],
    ["0710", 0o710],
    ["0705", 0o705],
    ["0755", 0o755],
  ])("narrows a directory of mode %s to 0700, and says so", (_shown, bits) => {
    const dir = join(tempDir(), "store");
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, bits);
    const heard: number[] = [];
    privateDirectory(dir, (was) => heard.push(was));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(heard).toEqual([bits]);
  });

  it("leaves a 0700 directory alone", () => {
    const dir = join(tempDir(), "store");
    mkdirSync(dir, { mode: 0o700 });
    const heard: number[] = [];
    privateDirectory(dir, (was) => heard.push(was));
    expect(heard).toEqual([]);
  });
});
