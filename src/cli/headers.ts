/**
 * `--header`: HTTP headers for every request to the server. Secrets should not sit on a command line (shell
 * history, `ps`), so a value may name environment variables (`'Authorization: Bearer ${MCP_TOKEN}'`, in single
 * quotes so the shell leaves it alone) and `--header @file` reads `Name: value` lines from a file. A header's value
 * is never printed: problems are reported by the header's name or the option's position.
 */
import { readFileSync } from "node:fs";
import { firstLine } from "./args.js";
import { UsageError } from "./exit-codes.js";

const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The headers of every `--header`, later ones replacing earlier ones of the same name (ignoring case). */
export function readHeaders(
  options: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  readFile: (path: string) => string = (path) => readFileSync(path, "utf8"),
): Record<string, string> {
  const headers = new Map<string, [string, string]>();
  options.forEach((option, index) => {
    const where = `--header #${index + 1}`;
    const lines = option.startsWith("@") ? fileLines(option.slice(1), readFile) : [option];
    lines.forEach((line, lineIndex) => {
      const place = option.startsWith("@") ? `${option} line ${lineIndex + 1}` : where;
      const [name, value] = splitHeader(line, place);
      headers.set(name.toLowerCase(), [name, expand(value, name, env)]);
    });
  });
  return Object.fromEntries(headers.values());
}

function fileLines(path: string, readFile: (path: string) => string): string[] {
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    throw new UsageError(`cannot read --header @${path}: ${firstLine(error)}`);
  }
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

function splitHeader(text: string, place: string): [string, string] {
  const colon = text.indexOf(":");
  const name = colon === -1 ? "" : text.slice(0, colon).trim();
  if (!NAME.test(name)) throw new UsageError(`${place}: expected 'Name: value' with a valid header name`);
  return [name, text.slice(colon + 1).trim()];
}

/** `${VAR}` replaced by the variable's value; an unset variable is an error that names it (not its value). */
function expand(value: string, name: string, env: NodeJS.ProcessEnv): string {
  return value.replace(VARIABLE, (_whole, variable: string) => {
    const found = env[variable];
    if (found === undefined)
      throw new UsageError(`--header ${name}: the environment variable ${variable} is not set`);
    return found;
  });
}
