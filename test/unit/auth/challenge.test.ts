/** Reading `WWW-Authenticate` (RFC 7235 §4.1, RFC 6750 §3, RFC 9728 §5.1) into what an `AuthError` carries. */
import { describe, expect, it } from "vitest";
import { readChallenge } from "../../../src/auth/challenge.js";

describe("readChallenge", () => {
  it("reads the Bearer parameters a resource server sends", () => {
    expect(
      readChallenge(
        'Bearer error="insufficient_scope", error_description="Needs write", scope="tasks:read tasks:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"',
      ),
    ).toEqual({
      error: "insufficient_scope",
      errorDescription: "Needs write",
      scope: "tasks:read tasks:write",
      resourceMetadataUrl: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
    });
  });

  it("takes the Bearer challenge when several are offered, and token values without quotes", () => {
    expect(readChallenge('Basic realm="old", Bearer realm="mcp", error=invalid_token')).toEqual({
      error: "invalid_token",
    });
    expect(readChallenge('DPoP algs="ES256", Bearer scope="a"')).toEqual({ scope: "a" });
  });

  it("unescapes quoted-pairs and ignores the case of parameter names and of the scheme", () => {
    expect(readChallenge('bearer ERROR="invalid_token", Error_Description="say \\"hi\\""')).toEqual({
      error: "invalid_token",
      errorDescription: 'say "hi"',
    });
  });

  it("skips a token68 and reads the first challenge when none is Bearer", () => {
    expect(readChallenge("Negotiate abc123==, Custom error=nope")).toEqual({});
    expect(readChallenge('Custom error="nope"')).toEqual({ error: "nope" });
  });

  it("returns what it could read from malformed text, and nothing from none", () => {
    expect(readChallenge(undefined)).toEqual({});
    expect(readChallenge("")).toEqual({});
    expect(readChallenge('Bearer error="invalid_token", scope="unterminated')).toEqual({
      error: "invalid_token",
    });
    expect(readChallenge("Bearer")).toEqual({});
  });
});
