/**
 * Owns reading the MCP server config files users already have into a host's `servers`: Claude Desktop, Claude
 * Code and Cursor (`{ "mcpServers": { name: { command, args, env } | { url, headers } } }`) and VS Code
 * (`{ "servers": { name: { type: "stdio" | "http" | "sse", … } } }`). Pure: the text (or object) in, the
 * servers out; nothing is started here. A field it does not understand is reported, never silently dropped; a
 * field it cannot use is an error naming the file and the field.
 */
import type { StdioServer, UrlServer } from "./servers.js";

/** Where a config's text came from, for error messages: its path, or "the config object". */
export interface ConfigSource {
  name: string;
  /** The environment `${env:NAME}` reads. */
  env: Record<string, string | undefined>;
  /** Hears each field the parser does not understand, once. */
  warn(message: string): void;
}

/** The servers a config file describes, by name (disabled ones left out). */
export type ConfigServers = Record<string, UrlServer | StdioServer>;

const TOP_KEYS = new Set(["mcpServers", "servers", "inputs"]);
const SERVER_KEYS = new Set(["type", "command", "args", "env", "cwd", "url", "headers", "disabled"]);

/** Parses a config file's text (JSON; VS Code's comments and trailing commas are not read). */
export function parseConfigText(text: string, source: ConfigSource): ConfigServers {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TypeError(`${source.name}: not valid JSON (${(error as Error).message})`);
  }
  return parseConfig(json, source);
}

/** Reads a parsed config object into servers. */
export function parseConfig(json: unknown, source: ConfigSource): ConfigServers {
  const fail = (field: string, problem: string): never => {
    throw new TypeError(`${source.name}: ${field} ${problem}`);
  };
  if (!isRecord(json)) return fail("the config", "must be a JSON object");
  const key = "mcpServers" in json ? "mcpServers" : "servers" in json ? "servers" : undefined;
  if (key === undefined) return fail("the config", 'has neither "mcpServers" nor "servers"');
  for (const top of Object.keys(json)) {
    if (!TOP_KEYS.has(top))
      source.warn(`${source.name}: ignoring the field ${top}, which mcp-tasks does not read`);
  }
  const servers = json[key];
  if (!isRecord(servers)) return fail(key, "must be an object of server names to servers");
  const out: ConfigServers = {};
  for (const [name, raw] of Object.entries(servers)) {
    const field = `${key}.${name}`;
    if (!isRecord(raw)) return fail(field, "must be an object");
    if (raw["disabled"] === true) continue;
    if (raw["disabled"] !== undefined && typeof raw["disabled"] !== "boolean")
      fail(`${field}.disabled`, "must be a boolean");
    for (const own of Object.keys(raw)) {
      if (!SERVER_KEYS.has(own)) {
        source.warn(`${source.name}: ignoring the field ${field}.${own}, which mcp-tasks does not read`);
      }
    }
    const expand = (value: string, at: string): string => expandVariables(value, source, at, fail);
    const type = raw["type"];
    if (type !== undefined && type !== "stdio" && type !== "http" && type !== "sse") {
      fail(`${field}.type`, 'must be "stdio", "http" or "sse"');
    }
    const hasUrl = raw["url"] !== undefined;
    const hasCommand = raw["command"] !== undefined;
    if (hasUrl && hasCommand) fail(field, "has both `url` and `command`");
    if (type === "stdio" && !hasCommand) fail(`${field}.command`, 'is required with type "stdio"');
    if ((type === "http" || type === "sse") && !hasUrl)
      fail(`${field}.url`, `is required with type "${type}"`);
    if (hasUrl) {
      if (type === "sse") {
        source.warn(
          `${source.name}: ${field} is type "sse"; mcp-tasks speaks Streamable HTTP to its url (the 2024-11-05 SSE transport is not supported)`,
        );
      }
      for (const stdioKey of ["args", "env", "cwd"]) {
        if (raw[stdioKey] !== undefined) fail(`${field}.${stdioKey}`, "applies to a `command` server only");
      }
      const url = expand(stringField(raw["url"], `${field}.url`, fail), `${field}.url`);
      const server: UrlServer = { url };
      if (raw["headers"] !== undefined) {
        server.headers = stringRecord(raw["headers"], `${field}.headers`, fail, expand);
      }
      out[name] = server;
    } else if (hasCommand) {
      if (raw["headers"] !== undefined) fail(`${field}.headers`, "applies to a `url` server only");
      const server: StdioServer = {
        command: expand(stringField(raw["command"], `${field}.command`, fail), `${field}.command`),
      };
      if (raw["args"] !== undefined) {
        const args = raw["args"];
        if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
          fail(`${field}.args`, "must be an array of strings");
        }
        server.args = (args as string[]).map((arg, i) => expand(arg, `${field}.args[${i}]`));
      }
      if (raw["env"] !== undefined) server.env = stringRecord(raw["env"], `${field}.env`, fail, expand);
      if (raw["cwd"] !== undefined)
        server.cwd = expand(stringField(raw["cwd"], `${field}.cwd`, fail), `${field}.cwd`);
      out[name] = server;
    } else {
      fail(field, "needs a `command` or a `url`");
    }
  }
  return out;
}

/** `${env:NAME}` → the variable's value; an unset variable or a VS Code `${input:…}` is an error. */
function expandVariables(
  value: string,
  source: ConfigSource,
  field: string,
  fail: (field: string, problem: string) => never,
): string {
  return value.replace(/\$\{([^}]*)\}/g, (whole, inner: string) => {
    if (inner.startsWith("env:")) {
      const name = inner.slice(4);
      const found = source.env[name];
      if (found === undefined) return fail(field, `names \${env:${name}}, which is not set`);
      return found;
    }
    if (inner.startsWith("input:")) {
      return fail(field, `uses ${whole}: VS Code "inputs" are not supported; use \${env:NAME} instead`);
    }
    return fail(field, `uses ${whole}: only \${env:NAME} is expanded`);
  });
}

function stringField(value: unknown, field: string, fail: (field: string, problem: string) => never): string {
  if (typeof value !== "string" || value.length === 0) return fail(field, "must be a non-empty string");
  return value;
}

function stringRecord(
  value: unknown,
  field: string,
  fail: (field: string, problem: string) => never,
  expand: (value: string, at: string) => string,
): Record<string, string> {
  if (!isRecord(value)) return fail(field, "must be an object of strings");
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string") fail(`${field}.${key}`, "must be a string");
    out[key] = expand(entry as string, `${field}.${key}`);
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
