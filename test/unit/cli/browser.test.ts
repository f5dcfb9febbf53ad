import { describe, expect, it } from "vitest";
import { unsafeLink } from "../../../src/cli/browser.js";

describe("links the command shows or opens", () => {
  it.each([
    "https://auth.example/authorize?client_id=x&state=y",
    "http://127.0.0.1:8080/authorize",
    "http://127.5.6.7/x",
    "http://localhost:3000/consent",
    "http://[::1]:9/x",
  ])("accepts %s", (url) => {
    expect(unsafeLink(url)).toBeUndefined();
  });

  it.each([
    ["file:///etc/passwd", "its scheme is file:"],
    ["javascript:alert(1)", "its scheme is javascript:"],
    ["ms-settings:privacy", "its scheme is ms-settings:"],
    ["x-handler://run?payload=1", "its scheme is x-handler:"],
    ["http://auth.example/authorize", "it is plain http:// to another machine"],
    ["http://127.0.0.1.evil.example/", "it is plain http:// to another machine"],
    ["not a url", "it is not a URL"],
  ])("refuses %s", (url, why) => {
    expect(unsafeLink(url)).toContain(why);
  });
});
