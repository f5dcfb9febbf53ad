/**
 * What the model is shown for each kind of MCP content (the shared part of every bridge): text as text, images
 * as images, embedded text resources as their text, everything else as a one-line description; a result with
 * only structured content as its JSON.
 */
import { describe, expect, it } from "vitest";
import type { CallToolResult } from "mcp-tasks";
import { modelParts, resultText } from "../../../src/bridges/shared/output.js";

const result = (content: unknown[], extra: Record<string, unknown> = {}) =>
  ({ content, ...extra }) as unknown as CallToolResult;

describe("modelParts", () => {
  it("maps every content type", () => {
    expect(
      modelParts(
        result([
          { type: "text", text: "hello" },
          { type: "image", data: "AAAA", mimeType: "image/jpeg" },
          { type: "audio", data: "BBBB", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///notes.md", text: "# Notes" } },
          { type: "resource", resource: { uri: "file:///logo.png", mimeType: "image/png", blob: "CCCC" } },
          { type: "resource_link", uri: "file:///big.csv", name: "big.csv" },
          { type: "something_new" },
        ]),
      ),
    ).toEqual([
      { type: "text", text: "hello" },
      { type: "image", data: "AAAA", mediaType: "image/jpeg" },
      { type: "text", text: "[audio (audio/wav)]" },
      { type: "text", text: "# Notes" },
      { type: "text", text: "[resource: file:///logo.png (image/png)]" },
      { type: "text", text: "[resource link: big.csv file:///big.csv]" },
      { type: "text", text: "[something_new content]" },
    ]);
  });

  it("gives structured content as JSON when there is no other content", () => {
    expect(modelParts(result([], { structuredContent: { total: 12 } }))).toEqual([
      { type: "text", text: '{"total":12}' },
    ]);
    expect(modelParts(result([{ type: "text", text: "12" }], { structuredContent: { total: 12 } }))).toEqual([
      { type: "text", text: "12" },
    ]);
  });

  it("joins the parts into one text, images described", () => {
    expect(
      resultText(
        result([
          { type: "text", text: "Chart:" },
          { type: "image", data: "AAAA", mimeType: "image/png" },
        ]),
      ),
    ).toBe("Chart:\n[image (image/png)]");
  });
});
