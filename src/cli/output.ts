/**
 * Where the command writes. `cliMain` wraps stdout and stderr in a `SafeOutput` once, and every command, the
 * reporter and `login` write through it, so no caller can forget to sanitize: `write` shows control and
 * invisible characters as escapes (terminal-text.ts), whoever wrote the text. Only two things pass unchanged: a
 * result or JSON on a stream that is not a terminal (`data`: a pipe or a file gets the server's bytes exactly),
 * and the status line's own redraw sequence, which no caller supplies.
 */
import { oneLine, terminalText } from "./terminal-text.js";

/** A stream the command writes to (process.stdout, process.stderr, or a test's stand-in). */
export interface Output {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const CLEAR_LINE = "\r\u001b[2K";

export class SafeOutput implements Output {
  private constructor(private readonly stream: Output) {}

  /** `stream` wrapped (a `SafeOutput` is returned as it is). */
  static over(stream: Output): SafeOutput {
    return stream instanceof SafeOutput ? stream : new SafeOutput(stream);
  }

  get isTTY(): boolean {
    return this.stream.isTTY === true;
  }

  get columns(): number | undefined {
    return this.stream.columns;
  }

  /** Text for people: newlines and tabs kept, every other control or format character shown escaped. */
  write(text: string): boolean {
    this.stream.write(terminalText(text));
    return true;
  }

  /**
   * Output for programs (a tool result, NDJSON, a ref): byte-exact when this stream is not a terminal; on a
   * terminal, made safe like `write` (for JSON that is lossless: the escapes are JSON's own, and
   * `JSON.stringify` already escapes C0 controls but not DEL, C1 or bidi characters).
   */
  data(text: string): void {
    this.stream.write(this.isTTY ? terminalText(text) : text);
  }

  /** Replaces the current terminal line with `line` (kept on one line), for a status line redrawn in place. */
  redraw(line: string): void {
    this.stream.write(`${CLEAR_LINE}${oneLine(line)}`);
  }

  /** Clears the current terminal line (the status line) so a message can take its place. */
  clearLine(): void {
    this.stream.write(CLEAR_LINE);
  }
}
