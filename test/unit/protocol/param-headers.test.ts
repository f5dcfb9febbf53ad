import { describe, expect, it } from "vitest";
import { paramHeaderValues, scanParamHeaders } from "../../../src/protocol/param-headers.js";

const schema = (properties: Record<string, unknown>) => ({ type: "object", properties });

describe("scanParamHeaders", () => {
  it("finds declarations at any depth of a properties chain", () => {
    const scan = scanParamHeaders(
      schema({
        region: { type: "string", "x-mcp-header": "Region" },
        query: { type: "string" },
        scope: schema({ tenant: { type: "integer", "x-mcp-header": "Tenant" } }),
      }),
    );
    expect(scan).toEqual({
      ok: true,
      headers: [
        { name: "Region", path: ["region"] },
        { name: "Tenant", path: ["scope", "tenant"] },
      ],
    });
  });

  it("accepts a nullable primitive and a schema without declarations", () => {
    expect(scanParamHeaders(schema({ on: { type: ["boolean", "null"], "x-mcp-header": "On" } })).ok).toBe(
      true,
    );
    expect(scanParamHeaders(schema({ q: { type: "string" } }))).toEqual({ ok: true, headers: [] });
    expect(scanParamHeaders(undefined)).toEqual({ ok: true, headers: [] });
  });

  it.each([
    [
      "a number property",
      schema({ n: { type: "number", "x-mcp-header": "N" } }),
      /not a string, integer or boolean/,
    ],
    [
      "an object property",
      schema({ o: { type: "object", "x-mcp-header": "O" } }),
      /not a string, integer or boolean/,
    ],
    ["an empty name", schema({ s: { type: "string", "x-mcp-header": "" } }), /not a valid header name/],
    [
      "a name with a space",
      schema({ s: { type: "string", "x-mcp-header": "My Region" } }),
      /not a valid header name/,
    ],
    [
      "a name with a colon",
      schema({ s: { type: "string", "x-mcp-header": "A:B" } }),
      /not a valid header name/,
    ],
    [
      "names equal but for case",
      schema({
        a: { type: "string", "x-mcp-header": "Region" },
        b: { type: "string", "x-mcp-header": "region" },
      }),
      /repeats "Region"/,
    ],
    [
      "a declaration under items",
      schema({ list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } }),
      /not reachable/,
    ],
    [
      "a declaration under anyOf",
      schema({ a: { anyOf: [{ type: "string", "x-mcp-header": "A" }] } }),
      /not reachable/,
    ],
    [
      "a declaration under $defs",
      { type: "object", $defs: { x: { type: "string", "x-mcp-header": "X" } } },
      /not reachable/,
    ],
    ["a declaration on the root", { type: "string", "x-mcp-header": "Root" }, /not reachable/],
  ])("rejects %s", (_case, input, reason) => {
    const scan = scanParamHeaders(input);
    expect(scan.ok).toBe(false);
    if (!scan.ok) expect(scan.reason).toMatch(reason);
  });
});

describe("paramHeaderValues", () => {
  const declared = [
    { name: "Region", path: ["region"] },
    { name: "Verbose", path: ["verbose"] },
    { name: "Tenant", path: ["scope", "tenant"] },
  ];

  it("renders strings as they are, integers in decimal and booleans as true/false", () => {
    expect(
      paramHeaderValues(declared, { region: "eu-west-1", verbose: false, scope: { tenant: 42 } }),
    ).toEqual({
      "Mcp-Param-Region": "eu-west-1",
      "Mcp-Param-Verbose": "false",
      "Mcp-Param-Tenant": "42",
    });
  });

  it("omits null, absent and non-primitive values, and integers JavaScript cannot hold exactly", () => {
    expect(paramHeaderValues(declared, { region: null, scope: { tenant: 2 ** 60 } })).toEqual({});
    expect(paramHeaderValues(declared, { region: { nested: true }, verbose: [true], scope: "flat" })).toEqual(
      {},
    );
    expect(paramHeaderValues(declared, { scope: { tenant: 1.5 } })).toEqual({});
  });

  it("wraps values that cannot travel as plain header text in the base64 sentinel", () => {
    const headers = paramHeaderValues(declared, { region: "Zürich" });
    expect(headers["Mcp-Param-Region"]).toBe(`=?base64?${Buffer.from("Zürich").toString("base64")}?=`);
    expect(paramHeaderValues(declared, { region: " padded" })["Mcp-Param-Region"]).toMatch(/^=\?base64\?/);
  });
});
