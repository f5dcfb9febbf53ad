/**
 * The command line, read once: the subcommand, its operands, its options, and the stdio server command after
 * `--`. Built on `node:util` `parseArgs` (no dependency); everything it refuses becomes a `UsageError`.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { JSONObject } from "../schema/index.js";
import type { CliConfig } from "./config.js";
import { UsageError } from "./exit-codes.js";

export type UnansweredPolicy = "fail" | "decline" | "cancel";

export interface CliOptions {
  /** `--server`: a server URL, or with `--config` a server's name in the file. */
  server: string | undefined;
  /** `--config FILE`: the MCP servers config file to read (else `MCP_TASKS_CONFIG`; never any other file). */
  config: string | undefined;
  store: string | undefined;
  json: boolean;
  detach: boolean;
  timeoutMs: number | undefined;
  noInput: boolean;
  unanswered: UnansweredPolicy;
  allowSampling: boolean;
  roots: string[];
  /** `--header` as typed: `Name: value` (with `${VAR}` read from the environment) or `@file`. */
  headers: string[];
  /** `login`: print the authorization URL without trying to open a browser. */
  noBrowser: boolean;
  /** `login`: the scope to ask for (space-separated), instead of what the server's first challenge names. */
  scope: string | undefined;
  help: boolean;
}

export interface Invocation {
  command: string | undefined;
  operands: string[];
  options: CliOptions;
  /** The stdio server command: everything after the first `--`. */
  stdio: string[] | undefined;
  /** The config file `--config` or `MCP_TASKS_CONFIG` names, read by `cliMain` before the command runs. */
  config?: CliConfig;
}

const OPTION_SPEC = {
  server: { type: "string" },
  config: { type: "string" },
  store: { type: "string" },
  json: { type: "boolean" },
  detach: { type: "boolean" },
  timeout: { type: "string" },
  "no-input": { type: "boolean" },
  unanswered: { type: "string" },
  "allow-sampling": { type: "boolean" },
  roots: { type: "string", multiple: true },
  header: { type: "string", multiple: true },
  "no-browser": { type: "boolean" },
  scope: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export function readInvocation(argv: readonly string[]): Invocation {
  const split = argv.indexOf("--");
  const own = split === -1 ? [...argv] : argv.slice(0, split);
  const stdio = split === -1 ? undefined : argv.slice(split + 1);
  if (stdio !== undefined && stdio.length === 0)
    throw new UsageError("`--` must be followed by a server command");
  let parsed;
  try {
    parsed = parseArgs({ args: own, options: OPTION_SPEC, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(firstLine(error));
  }
  const { values, positionals } = parsed;
  const options: CliOptions = {
    server: values.server,
    config: values.config,
    store: values.store,
    json: values.json === true,
    detach: values.detach === true,
    timeoutMs: values.timeout === undefined ? undefined : readDuration(values.timeout),
    noInput: values["no-input"] === true,
    unanswered: readPolicy(values.unanswered),
    allowSampling: values["allow-sampling"] === true,
    roots: values.roots ?? [],
    headers: values.header ?? [],
    noBrowser: values["no-browser"] === true,
    scope: readScope(values.scope),
    help: values.help === true,
  };
  const [command, ...operands] = positionals;
  return { command, operands, options, stdio };
}

/** `30s`, `1500ms`, `2m`, `1h`, or a bare number of seconds. */
export function readDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (match === null) throw new UsageError(`invalid --timeout ${JSON.stringify(text)} (try 30s, 2m, 500ms)`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? "s"] ?? 1000;
  return Number(match[1]) * unit;
}

/** `--scope 'a b'`: scope tokens (RFC 6749 §3.3), separated by spaces. */
function readScope(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const tokens = text.split(/\s+/).filter(Boolean);
  if (tokens.length === 0 || !tokens.every((token) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(token))) {
    throw new UsageError(`invalid --scope ${JSON.stringify(text)} (scope names separated by spaces)`);
  }
  return tokens.join(" ");
}

function readPolicy(text: string | undefined): UnansweredPolicy {
  if (text === undefined) return "fail";
  if (text === "fail" || text === "decline" || text === "cancel") return text;
  throw new UsageError(`invalid --unanswered ${JSON.stringify(text)} (fail, decline or cancel)`);
}

/**
 * A tool's arguments from the words after its name, merged left to right: a JSON object (`'{"seconds":5}'`),
 * `@file.json` (a file holding one), or `key=value` (the value read as JSON when it parses, else as text).
 */
export function readToolArguments(words: readonly string[], readFile = readText): JSONObject {
  const args: JSONObject = {};
  for (const word of words) {
    if (word.startsWith("{")) Object.assign(args, jsonObject(word, "arguments"));
    else if (word.startsWith("@")) Object.assign(args, jsonObject(readFile(word.slice(1)), word));
    else {
      const eq = word.indexOf("=");
      if (eq <= 0) {
        throw new UsageError(
          `cannot read argument ${JSON.stringify(word)}: use JSON, key=value or @file.json`,
        );
      }
      args[word.slice(0, eq)] = jsonOrText(word.slice(eq + 1));
    }
  }
  return args;
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read @${path}: ${firstLine(error)}`);
  }
}

function jsonObject(text: string, what: string): JSONObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`invalid JSON in ${what}: ${firstLine(error)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`${what} must be a JSON object`);
  }
  return value as JSONObject;
}

function jsonOrText(text: string): JSONObject[string] {
  try {
    return JSON.parse(text) as JSONObject[string];
  } catch {
    return text;
  }
}

/** The first line of an error's message: CLI errors are one line. */
export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n", 1)[0] ?? message;
}
