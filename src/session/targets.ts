/**
 * What a user may hand `TaskClient.connect`: a URL, a stdio server command, or a transport they built
 * themselves. A URL gets this library's own Streamable HTTP transport (./streamable-http.ts, built with the
 * connection's headers by ./http-transport.ts: no SDK `Client`, so the main entry stays small; an `auth` plug-in
 * from `mcp-tasks/oauth` brings the SDK's transport and its OAuth code); a command gets the v2 SDK's stdio transport, loaded
 * on demand behind `#stdio`, so a browser or Worker bundle never contains it.
 */
import { buildHttpTransport, type HttpTransportOptions } from "./http-transport.js";
import type { McpTransport } from "./types.js";

/** A local MCP server started as a child process and spoken to over its stdin/stdout. */
export interface StdioTarget {
  command: string;
  args?: string[];
  /** Added to a minimal inherited environment (PATH, HOME, …), as the SDK does. */
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * Where to connect: a Streamable HTTP endpoint (`string` or `URL`), a stdio command, or any MCP SDK transport
 * (v1 `@modelcontextprotocol/sdk` or v2 `@modelcontextprotocol/client`), used as is and not yet started.
 */
export type ConnectTarget = string | URL | StdioTarget | McpTransport;

/**
 * Checks a target before anything is opened: a `TypeError` for one that is none of the kinds above (or a URL
 * that is not http(s)).
 */
export function checkConnectTarget(target: unknown): void {
  if (typeof target === "string" || target instanceof URL) parseUrl(target);
  else if (!isTransport(target) && !isStdioTarget(target)) throw notATarget();
}

function notATarget(): TypeError {
  return new TypeError(
    "connect target must be a URL, a stdio command ({ command, args? }), or an MCP transport (start/send/close)",
  );
}

/** Builds (or passes through) the transport for a target. The transport is returned unstarted. */
export async function resolveTransport(
  target: ConnectTarget,
  options: HttpTransportOptions = {},
): Promise<McpTransport> {
  if (typeof target === "string" || target instanceof URL) {
    return buildHttpTransport(parseUrl(target), options);
  }
  if (isTransport(target)) return target;
  if (isStdioTarget(target)) {
    // `#stdio` (package.json "imports"): the SDK's stdio transport under the `node` condition, an error elsewhere.
    const { createStdioTransport } = await import("#stdio");
    return createStdioTransport(target, options.maxMessageBytes);
  }
  throw notATarget();
}

function parseUrl(target: string | URL): URL {
  let url: URL | undefined;
  try {
    url = new URL(target);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new TypeError(`connect target ${JSON.stringify(String(target))} is not an http(s) URL`);
  }
  return url;
}

function isTransport(value: unknown): value is McpTransport {
  const candidate = value as Partial<Record<keyof McpTransport, unknown>> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.start === "function" &&
    typeof candidate.send === "function" &&
    typeof candidate.close === "function"
  );
}

function isStdioTarget(value: unknown): value is StdioTarget {
  const candidate = value as Partial<StdioTarget> | null;
  return typeof candidate === "object" && candidate !== null && typeof candidate.command === "string";
}
