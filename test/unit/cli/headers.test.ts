/** `--header`: `Name: value`, `${VAR}` from the environment, `@file` lines; errors never show a value. */
import { describe, expect, it } from "vitest";
import { readHeaders } from "../../../src/cli/headers.js";
import { UsageError } from "../../../src/cli/exit-codes.js";

const noFiles = (path: string): string => {
  throw new Error(`ENOENT: ${path}`);
};

describe("readHeaders", () => {
  it("reads Name: value pairs, trimming around the colon; a later header replaces one of the same name", () => {
    expect(
      readHeaders(["X-Tenant:  blue ", "authorization: Bearer a", "Authorization: Bearer b"], {}, noFiles),
    ).toEqual({
      "X-Tenant": "blue",
      Authorization: "Bearer b",
    });
  });

  it("reads ${VAR} from the environment, so a secret stays off the command line", () => {
    expect(readHeaders(["Authorization: Bearer ${MCP_TOKEN}"], { MCP_TOKEN: "t0k3n" }, noFiles)).toEqual({
      Authorization: "Bearer t0k3n",
    });
  });

  it("names an unset variable without printing anything of the value", () => {
    const run = () => readHeaders(["Authorization: Bearer ${MISSING} s3cr3t"], {}, noFiles);
    expect(run).toThrow(UsageError);
    expect(run).toThrow("--header Authorization: the environment variable MISSING is not set");
    expect(run).not.toThrow(/s3cr3t/);
  });

  it("reads @file lines, skipping blanks and comments", () => {
    const files: Record<string, string> = {
      "/run/secrets/h": "# for the staging gateway\nAuthorization: Bearer ${T}\r\n\nX-Route: canary\n",
    };
    expect(readHeaders(["@/run/secrets/h"], { T: "abc" }, (path) => files[path] as string)).toEqual({
      Authorization: "Bearer abc",
      "X-Route": "canary",
    });
  });

  it("refuses a malformed header by its position, never echoing it", () => {
    const run = () => readHeaders(["X-Ok: 1", "Bearer s3cr3t"], {}, noFiles);
    expect(run).toThrow("--header #2: expected 'Name: value' with a valid header name");
    expect(run).not.toThrow(/s3cr3t/);
    expect(() => readHeaders(["@/nope"], {}, noFiles)).toThrow(/cannot read --header @\/nope/);
  });
});
