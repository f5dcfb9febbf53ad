/**
 * Input requests answered in the terminal. A form elicitation becomes one question per field of its schema
 * (text, number, boolean, a choice for enums), after a first question that always offers decline and cancel. A
 * URL elicitation shows the full URL and its host and asks before anything is opened (only https://, or
 * http:// to this machine: browser.ts). Sampling is answered by the person at the terminal, only with
 * `--allow-sampling`; roots are the folders of `--roots`. Questions are asked one at a time, on stderr, with
 * node's readline (no dependency). Server text is untrusted: everything the asker shows (`say` and the
 * question itself) passes through `terminalText`, and a value that belongs on one line through `oneLine`.
 */
import { resolve } from "node:path";
import { createInterface, type Interface } from "node:readline/promises";
import { pathToFileURL } from "node:url";
import type { InputContext, InputHandlers } from "../index.js";
import type { ElicitRequestParams, ElicitResult } from "../schema/index.js";
import { openInBrowser, unsafeLink } from "./browser.js";
import { oneLine, terminalText } from "./terminal-text.js";

export interface Terminal {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Ctrl-C while a question is open (readline takes the key from the terminal). */
  onInterrupt: () => void;
  /** Around each question, so the status line stays out of the way. */
  pause: () => void;
  resume: () => void;
}

export interface PromptOptions {
  /** Ask in the terminal (false: no elicitation handler, the `--unanswered` policy applies). */
  interactive: boolean;
  allowSampling: boolean;
  roots: string[];
}

type Field = {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: { const?: unknown; title?: string }[];
  default?: unknown;
};

/** The input handlers of a command-line run. */
export function terminalHandlers(terminal: Terminal, options: PromptOptions): InputHandlers {
  const asker = new Asker(terminal);
  const handlers: InputHandlers = {};
  if (options.interactive) {
    handlers.elicitation = (params, context) =>
      asker.session(context.signal, (ask) =>
        params.mode === "url" ? urlElicitation(ask, params, context) : formElicitation(ask, params, context),
      );
    if (options.allowSampling) {
      handlers.sampling = (params, context) =>
        asker.session(context.signal, async (ask) => {
          ask.say(`\nThe server asks for a model completion (${whoAsks(context)}):`);
          for (const message of params.messages) {
            const content = Array.isArray(message.content) ? message.content : [message.content];
            for (const block of content) {
              ask.say(
                `  ${message.role}: ${block.type === "text" ? block.text : `[${oneLine(block.type)}]`}`,
              );
            }
          }
          const text = await ask.question("  Your reply (as the model): ");
          return { role: "assistant", content: { type: "text", text }, model: "human-at-terminal" };
        });
    }
  }
  if (options.roots.length > 0) {
    const roots = options.roots.map((dir) => ({ uri: pathToFileURL(resolve(dir)).href, name: dir }));
    handlers.roots = () => Promise.resolve({ roots });
  }
  return handlers;
}

function whoAsks(context: InputContext): string {
  const { name, url } = context.server;
  return [name && oneLine(name), url && oneLine(url)].filter(Boolean).join(" at ") || "the server";
}

interface Ask {
  say(text: string): void;
  question(text: string): Promise<string>;
}

async function formElicitation(
  ask: Ask,
  params: ElicitRequestParams,
  context: InputContext,
): Promise<ElicitResult> {
  ask.say(
    `\n${params.message}\n  (asked by ${whoAsks(context)}${context.toolName === undefined ? "" : `, tool ${oneLine(context.toolName)}`})`,
  );
  const choice = await choose(ask, "  Answer, decline or cancel? [a/d/c] (a): ", ["a", "d", "c"], "a");
  if (choice === "d") return { action: "decline" };
  if (choice === "c") return { action: "cancel" };
  const schema = (params as { requestedSchema?: { properties?: Record<string, Field>; required?: string[] } })
    .requestedSchema;
  const required = new Set(schema?.required ?? []);
  const content: Record<string, string | number | boolean> = {};
  for (const [name, field] of Object.entries(schema?.properties ?? {})) {
    const value = await askField(ask, name, field, required.has(name));
    if (value !== undefined) content[name] = value;
  }
  return { action: "accept", content };
}

async function askField(
  ask: Ask,
  name: string,
  field: Field,
  required: boolean,
): Promise<string | number | boolean | undefined> {
  const label = `  ${oneLine(field.title ?? name)}${field.description ? ` (${oneLine(field.description)})` : ""}`;
  const fallback = field.default as string | number | boolean | undefined;
  const suffix = `${fallback === undefined ? "" : ` (${oneLine(String(fallback))})`}${required ? "" : " [optional]"}`;
  const choices = field.enum ?? field.oneOf?.map((option) => option.const);
  for (let attempt = 0; attempt < 20; attempt++) {
    if (choices !== undefined) {
      choices.forEach((value, i) =>
        ask.say(`    ${i + 1}) ${oneLine(String(field.oneOf?.[i]?.title ?? value))}`),
      );
    }
    const hint = field.type === "boolean" ? " [y/n]" : choices !== undefined ? ` [1-${choices.length}]` : "";
    const answer = (await ask.question(`${label}${hint}${suffix}: `)).trim();
    if (answer === "") {
      if (fallback !== undefined) return fallback;
      if (!required) return undefined;
      ask.say("    an answer is required");
      continue;
    }
    const value = readAnswer(answer, field, choices);
    if (value !== undefined) return value;
    ask.say(`    not a valid ${choices !== undefined ? "choice" : (field.type ?? "answer")}`);
  }
  throw new Error(`no valid answer for ${name}`);
}

function readAnswer(
  answer: string,
  field: Field,
  choices: unknown[] | undefined,
): string | number | boolean | undefined {
  if (choices !== undefined) {
    const picked = choices[Number(answer) - 1] ?? choices.find((value) => String(value) === answer);
    return picked as string | number | boolean | undefined;
  }
  if (field.type === "boolean") {
    if (/^(y|yes|true)$/i.test(answer)) return true;
    if (/^(n|no|false)$/i.test(answer)) return false;
    return undefined;
  }
  if (field.type === "number" || field.type === "integer") {
    const n = Number(answer);
    if (!Number.isFinite(n) || (field.type === "integer" && !Number.isInteger(n))) return undefined;
    return n;
  }
  return answer;
}

async function urlElicitation(
  ask: Ask,
  params: ElicitRequestParams,
  context: InputContext,
): Promise<ElicitResult> {
  const url = String((params as { url?: unknown }).url ?? "");
  ask.say(
    `\n${params.message}\n  (asked by ${whoAsks(context)}${context.toolName === undefined ? "" : `, tool ${oneLine(context.toolName)}`})`,
  );
  const unsafe = unsafeLink(url);
  if (unsafe !== undefined) {
    ask.say(
      `  The server asks you to open a link that mcp-tasks does not show, because ${unsafe}: declined.`,
    );
    return { action: "decline" };
  }
  ask.say(`  URL:  ${oneLine(url)}\n  Host: ${oneLine(context.urlHost ?? "?")}`);
  const choice = await choose(ask, "  Open it in your browser? [y/n/c] (n): ", ["y", "n", "c"], "n");
  if (choice === "c") return { action: "cancel" };
  if (choice === "n") return { action: "decline" };
  openInBrowser(url);
  return { action: "accept" };
}

async function choose(ask: Ask, question: string, options: string[], fallback: string): Promise<string> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const answer = (await ask.question(question)).trim().toLowerCase().slice(0, 1) || fallback;
    if (options.includes(answer)) return answer;
  }
  return "c";
}

/** One question at a time: input requests of several tasks (or keys) wait their turn. */
class Asker {
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly terminal: Terminal) {}

  session<T>(signal: AbortSignal, body: (ask: Ask) => Promise<T>): Promise<T> {
    const run = this.turn.then(async () => {
      signal.throwIfAborted();
      const rl: Interface = createInterface({ input: this.terminal.input, output: this.terminal.output });
      rl.on("SIGINT", () => this.terminal.onInterrupt());
      this.terminal.pause();
      try {
        return await body({
          say: (text) => this.terminal.output.write(`${terminalText(text)}\n`),
          question: (text) => rl.question(terminalText(text), { signal }),
        });
      } finally {
        rl.close();
        this.terminal.resume();
      }
    });
    this.turn = run.catch(() => undefined);
    return run;
  }
}

/**
 * One yes-or-no question on the terminal, outside any task (`watch` asking before it starts a stored command).
 * Only "y" or "yes" is a yes; Ctrl-C or the end of input is a no.
 */
export async function confirm(
  question: string,
  terminal: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } = {
    input: process.stdin,
    output: process.stderr,
  },
): Promise<boolean> {
  const stop = new AbortController();
  const rl = createInterface({ input: terminal.input, output: terminal.output });
  rl.on("SIGINT", () => stop.abort());
  rl.on("close", () => stop.abort());
  try {
    const answer = await rl.question(terminalText(question), { signal: stop.signal });
    return /^(y|yes)$/i.test(answer.trim());
  } catch {
    return false;
  } finally {
    rl.close();
  }
}
