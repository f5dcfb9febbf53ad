/**
 * What the command shows while a task runs, in three forms: a live status line redrawn in place on a terminal
 * (spinner, tool, elapsed time, status, message), plain timestamped lines otherwise, and NDJSON events with
 * `--json`. Progress goes to stderr and the result to stdout, so `mcp-tasks call … > out.txt` keeps only the
 * result; with `--json` every event goes to stdout. Server text is untrusted: the outputs are `SafeOutput`s, which
 * escape anything that could steer a terminal; here, server values that belong on one line (task ids, status
 * messages, input keys) are kept on it with `oneLine`.
 */
import type {
  CallToolResult,
  InputRequestEvent,
  TaskOutcome,
  TaskUpdate,
  UnansweredInputAction,
} from "../index.js";
import type { SafeOutput } from "./output.js";
import { oneLine } from "./terminal-text.js";

/** The `inputUnanswered` event of a handle. */
type UnansweredEvent = InputRequestEvent & { reason: string; action: UnansweredInputAction };

export interface Reporter {
  /** The server created a task. */
  task(taskId: string): void;
  update(update: TaskUpdate): void;
  input(event: InputRequestEvent): void;
  unanswered(event: UnansweredEvent): void;
  /** A line of the command's own (cancelling, detached, how to resume). */
  say(text: string, data?: Record<string, unknown>): void;
  /** Stops redrawing while a prompt owns the terminal. */
  pause(): void;
  resume(): void;
  /** Prints how the task ended (the result when it completed) and stops. */
  finish(outcome: TaskOutcome<CallToolResult>, exitCode: number): void;
}

export interface ReporterOptions {
  tool: string;
  json: boolean;
  live: boolean;
  stdout: SafeOutput;
  stderr: SafeOutput;
  now?: () => number;
}

export function createReporter(options: ReporterOptions): Reporter {
  if (options.json) return new JsonReporter(options.stdout);
  return new TextReporter(options);
}

class JsonReporter implements Reporter {
  constructor(private readonly out: SafeOutput) {}
  private emit(event: string, data: Record<string, unknown>): void {
    this.out.data(`${JSON.stringify({ event, at: new Date().toISOString(), ...data })}\n`);
  }
  task(taskId: string): void {
    this.emit("task", { taskId });
  }
  update({ taskId, status, statusMessage, terminal }: TaskUpdate): void {
    this.emit("update", { taskId, status, statusMessage, terminal });
  }
  input({ taskId, key, request }: InputRequestEvent): void {
    this.emit("input", { taskId, key, method: request.method, params: request.params });
  }
  unanswered({ taskId, key, request, reason, action }: UnansweredEvent): void {
    this.emit("inputUnanswered", { taskId, key, method: request.method, reason, action });
  }
  say(text: string, data: Record<string, unknown> = {}): void {
    this.emit("note", { message: text, ...data });
  }
  pause(): void {}
  resume(): void {}
  finish(outcome: TaskOutcome<CallToolResult>, exitCode: number): void {
    const { kind, taskId } = outcome;
    const detail =
      outcome.kind === "completed"
        ? { result: outcome.result }
        : { error: { name: outcome.error.name, message: outcome.error.message } };
    this.emit("outcome", { kind, taskId, ...detail, exitCode });
  }
}

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

class TextReporter implements Reporter {
  private readonly started: number;
  private readonly now: () => number;
  private status = "calling";
  private message: string | undefined;
  private frame = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private drawn = false;
  private paused = false;

  constructor(private readonly options: ReporterOptions) {
    this.now = options.now ?? Date.now;
    this.started = this.now();
    if (options.live) {
      this.timer = setInterval(() => this.draw(), 100);
      this.timer.unref();
      this.draw();
    }
  }

  task(taskId: string): void {
    this.say(`task ${oneLine(taskId)} created`);
  }

  update({ status, statusMessage }: TaskUpdate): void {
    const message = statusMessage === undefined ? undefined : oneLine(statusMessage);
    if (status === this.status && message === this.message) return;
    this.status = status;
    this.message = message;
    if (this.options.live) this.draw();
    else this.line(message === undefined ? status : `${status}: ${message}`);
  }

  input({ key, request }: InputRequestEvent): void {
    this.say(`the server asks for input (${oneLine(request.method)}, key ${oneLine(key)})`);
  }

  unanswered({ key, reason, action }: UnansweredEvent): void {
    this.say(`input ${oneLine(key)} not answered (${oneLine(reason)}); --unanswered ${action} applies`);
  }

  say(text: string): void {
    if (this.options.live) {
      this.clear();
      this.options.stderr.write(`${text}\n`);
      this.draw();
    } else this.line(text);
  }

  pause(): void {
    this.clear();
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.draw();
  }

  finish(outcome: TaskOutcome<CallToolResult>): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
    this.paused = true;
    const took = elapsed(this.now() - this.started);
    if (outcome.kind === "completed") {
      const error = outcome.result.isError === true;
      this.options.stderr.write(
        `${error ? "✗ tool error" : "✓ completed"}: ${oneLine(this.options.tool)} (${took})\n`,
      );
      this.options.stdout.data(renderResult(outcome.result));
    } else {
      this.options.stderr.write(
        `✗ ${outcome.kind.replace("_", " ")} after ${took}: ${oneLine(outcome.error.message)}\n`,
      );
    }
  }

  private line(text: string): void {
    const at = new Date(this.now()).toISOString();
    this.options.stderr.write(`${at} ${text}\n`);
  }

  private draw(): void {
    if (!this.options.live || this.paused || this.timer === undefined) return;
    const spinner = SPINNER[this.frame++ % SPINNER.length] ?? "";
    const head = `${spinner} ${this.options.tool}  ${elapsed(this.now() - this.started)}  ${this.status}`;
    const text = this.message === undefined ? head : `${head}  ${this.message}`;
    const width = Math.max(20, (this.options.stderr.columns ?? 80) - 1);
    this.options.stderr.redraw(text.length > width ? `${text.slice(0, width - 1)}…` : text);
    this.drawn = true;
  }

  private clear(): void {
    if (!this.drawn) return;
    this.options.stderr.clearLine();
    this.drawn = false;
  }
}

function elapsed(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  return `${Math.floor(seconds / 60)}m${String(Math.floor(seconds % 60)).padStart(2, "0")}s`;
}

/** A tool result for people: text blocks as text, other blocks and structured content as JSON. */
export function renderResult(result: CallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    parts.push(block.type === "text" ? block.text : JSON.stringify(block));
  }
  if (result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  return parts.length === 0 ? "" : `${parts.join("\n")}\n`;
}
