/**
 * Text made safe for a terminal. Servers choose task ids, status messages, prompts, error messages and results;
 * written raw, an escape sequence in them can set the clipboard (OSC 52), hide a link's target (OSC 8), move the
 * cursor to overwrite or forge lines, or retitle the window, and bidirectional overrides can reorder what is
 * shown. So every control character (C0, DEL and C1: ESC starts every such sequence, and C1 CSI, OSC and DCS
 * start them on some terminals), every line or paragraph separator, and every invisible format character
 * (bidi overrides and isolates, zero-width spaces, tag characters, soft hyphens…) is shown as a visible escape
 * instead. What follows a removed ESC then prints as harmless text, and the reader can see something was there.
 *
 * The escapes are JSON's (`\n`, `\t`, `\u001b`, `\u202e`), so JSON text passed through here still parses to the
 * same value. Zero-width joiner and non-joiner are kept: scripts (Persian, Indic) and emoji need them, and they
 * neither move the cursor nor reorder text.
 */

/** Every character that is escaped, unless `lines` keeps it (newline, tab, CRLF). */
const UNSAFE = /\r\n|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
const JOINERS = new Set(["\u200c", "\u200d"]);
const SHORT: Record<string, string> = { "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f" };

export interface TerminalTextOptions {
  /**
   * Keep newlines, tabs and CRLF line ends (text that is legitimately several lines: results, prompts, our own
   * messages). Default true; false escapes them too, for a value that must stay on its line (a task id, a status
   * message in the status line, a table cell).
   */
  lines?: boolean;
}

/** `text` with every character that could steer a terminal shown as an escape. The result is safe to print. */
export function terminalText(text: string, { lines = true }: TerminalTextOptions = {}): string {
  return text.replace(UNSAFE, (match) => {
    if (lines && (match === "\n" || match === "\t" || match === "\r\n")) return match;
    if (JOINERS.has(match)) return match;
    return [...match].map(escapeChar).join("");
  });
}

/** Server text for one line: like `terminalText`, newlines and tabs escaped too. */
export function oneLine(text: string): string {
  return terminalText(text, { lines: false });
}

function escapeChar(char: string): string {
  const short = SHORT[char];
  if (short !== undefined) return short;
  let escaped = "";
  for (let i = 0; i < char.length; i++) escaped += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return escaped;
}
