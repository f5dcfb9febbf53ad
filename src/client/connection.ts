/**
 * Owner of how a client's transports are built: the client's own connection and every session it joins (a
 * 2025-11-25 task's, ./joined-sessions.ts) are built here, from the same options — the connection's `headers`,
 * its `auth` plug-in and `maxMessageBytes` — so a joined session is held to every bound the client's own session
 * is. What differs between them is only what the caller adds: the per-request headers of the client's own
 * session (`Mcp-Param-*` mirroring), or the session a transport joins.
 */
import { resolveTransport, type ConnectTarget, type ResolveOptions } from "../session/targets.js";
import type { McpTransport } from "../session/types.js";
import type { ClientSettings } from "./settings.js";

/**
 * Builds (or passes through) a transport of the client for `target`, from the options every transport of the
 * client shares and `parts`. The transport is returned unstarted.
 */
export function openTransport(
  target: ConnectTarget,
  settings: ClientSettings,
  parts: Pick<ResolveOptions, "requestHeaders" | "join">,
): Promise<McpTransport> {
  return resolveTransport(target, {
    ...settings.http,
    maxMessageBytes: settings.options.maxMessageBytes,
    maxInFlight: settings.options.maxInFlight,
    ...parts,
  });
}
