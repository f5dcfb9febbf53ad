import { describe, expect, it } from "vitest";
import { SafeOutput } from "../../../src/cli/output.js";
import { oneLine, terminalText } from "../../../src/cli/terminal-text.js";

/** A stream that records what reaches it. */
function recorder(isTTY: boolean): { written: string[]; write(text: string): void; isTTY: boolean } {
  const written: string[] = [];
  return { written, isTTY, write: (text) => void written.push(text) };
}

describe("server text on a terminal", () => {
  it("shows ESC, BEL and the rest of C0, DEL and C1 as escapes, so no sequence reaches the terminal", () => {
    const clipboard = "\u001b]52;c;cm0gLXJmIH4=\u0007"; // OSC 52: write the clipboard
    const link = "\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\"; // OSC 8: a hidden link
    const csi = "\u009b2J\u007f"; // C1 CSI (clear screen on some terminals), DEL
    expect(terminalText(clipboard)).toBe("\\u001b]52;c;cm0gLXJmIH4=\\u0007");
    expect(terminalText(link)).toBe("\\u001b]8;;https://evil.example\\u001b\\click\\u001b]8;;\\u001b\\");
    expect(terminalText(csi)).toBe("\\u009b2J\\u007f");
  });

  it("shows bidi overrides and isolates, zero-width and tag characters, and line separators as escapes", () => {
    expect(terminalText("invoice\u202eexe.pdf")).toBe("invoice\\u202eexe.pdf");
    expect(terminalText("a\u2066b\u2069c\u200bd\ufeffe\u00adf")).toBe(
      "a\\u2066b\\u2069c\\u200bd\\ufeffe\\u00adf",
    );
    expect(terminalText("hi\u{e0041}")).toBe("hi\\udb40\\udc41"); // an invisible tag character
    expect(terminalText("one\u2028two")).toBe("one\\u2028two");
  });

  it("keeps newlines, tabs, CRLF, joiners and ordinary Unicode in multi-line text, but not a bare CR", () => {
    expect(terminalText("line 1\r\n\tline 2\nfamily 👨‍👩‍👧 مي‌خواهم ✓")).toBe(
      "line 1\r\n\tline 2\nfamily 👨‍👩‍👧 مي‌خواهم ✓",
    );
    expect(terminalText("all good\rforged")).toBe("all good\\rforged");
  });

  it("keeps one-line values on their line", () => {
    expect(oneLine("working\n2026-01-01T00:00:00Z completed\ttab")).toBe(
      "working\\n2026-01-01T00:00:00Z completed\\ttab",
    );
  });

  it("is lossless for JSON: sanitized JSON parses to the same value", () => {
    const value = { text: "\u001b]52;c;x\u0007 \u009b \u202e \u{e0041} \u2028 ok" };
    const json = JSON.stringify(value);
    expect(json).toContain("\u009b"); // JSON.stringify leaves C1, bidi and tag characters raw
    const safe = terminalText(json);
    expect(safe).toMatch(/^[\x20-\x7e]+$/); // printable ASCII only here
    expect(JSON.parse(safe)).toEqual(value);
  });
});

describe("SafeOutput", () => {
  it("sanitizes everything written as text, on a terminal or not", () => {
    for (const isTTY of [true, false]) {
      const stream = recorder(isTTY);
      SafeOutput.over(stream).write("task \u001b[31mred\u001b[0m created\n");
      expect(stream.written).toEqual(["task \\u001b[31mred\\u001b[0m created\n"]);
    }
  });

  it("passes data byte-exact to a pipe or file, and sanitized to a terminal", () => {
    const result = "raw \u001b[1mbold\u001b[0m result\n";
    const pipe = recorder(false);
    const tty = recorder(true);
    SafeOutput.over(pipe).data(result);
    SafeOutput.over(tty).data(result);
    expect(pipe.written).toEqual([result]);
    expect(tty.written).toEqual(["raw \\u001b[1mbold\\u001b[0m result\n"]);
  });

  it("redraws a status line in place, keeping the server's text on it", () => {
    const tty = recorder(true);
    SafeOutput.over(tty).redraw("⠋ job  1.0s  working  step\n\u001b[1Aforged");
    expect(tty.written).toEqual(["\r\u001b[2K⠋ job  1.0s  working  step\\n\\u001b[1Aforged"]);
  });
});
