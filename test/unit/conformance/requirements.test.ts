/**
 * Which client runs share a suite process: `conformance list --client --requirements <revision>` is read for the
 * scenarios that `conformance client --requirements <revision>` runs, scored or not, client side only.
 */
import { describe, expect, it } from "vitest";
import { parseRequiredClientScenarios } from "../../../scripts/conformance/suite.js";

// The shape of the suite's output (0.2.0-alpha.12), shortened.
const LISTED = `Required for 2026-07-28 (69 scenarios, frozen; run at the 2026-07-28 wire):

Server scenarios (test against a server):
  - server-stateless
  - tools-list

Client scenarios (test against a client):
  - tools_call
  - auth/metadata-default
  - json-schema-ref-no-deref

Run and reported, but never scored:
  extension (3):
    - auth/dpop [client]
    - tasks-lifecycle [server]
    - auth/wif-jwt-bearer [client]
  added-after-release (1):
    - json-schema-2020-12-preservation [client]
  pending (1):
    - http-header-validation [server]
`;

describe("the client scenarios a revision's requirements run", () => {
  it("lists the required client scenarios and the unscored client ones, and no server scenario", () => {
    expect([...parseRequiredClientScenarios(LISTED)].sort()).toEqual([
      "auth/dpop",
      "auth/metadata-default",
      "auth/wif-jwt-bearer",
      "json-schema-2020-12-preservation",
      "json-schema-ref-no-deref",
      "tools_call",
    ]);
  });

  it("finds nothing in output of another shape", () => {
    expect(parseRequiredClientScenarios("Usage: conformance list [options]\n").size).toBe(0);
  });
});
