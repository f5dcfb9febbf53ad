/**
 * Owns the names a host gives its servers' tools: `server__tool` by default, or what a `toolName` option says,
 * always within `^[a-zA-Z0-9_-]{1,64}$` (the tool-name rule of the agent frameworks the bridges serve), and
 * never two tools under one name.
 */

/** What every qualified name must match. */
export const QUALIFIED_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;

/** Replaces a host's naming rule: gets the server's config name and the tool's own name. */
export type ToolNamer = (server: string, tool: string) => string;

/**
 * The default rule: `server__tool`, every character outside `[a-zA-Z0-9_-]` replaced by `_`; a name longer than
 * 64 characters is cut and ends with a hash of the unchanged server and tool names, so it is stable across
 * restarts and two long names that share a beginning still differ.
 */
export function defaultToolName(server: string, tool: string): string {
  const name = `${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (name.length <= MAX_LENGTH) return name;
  const hash = fnv1a(`${server}\u0000${tool}`);
  return `${name.slice(0, MAX_LENGTH - hash.length - 1)}_${hash}`;
}

/** FNV-1a, 32 bits, as 8 hex digits: a stable short hash that needs no crypto (the host runs in browsers too). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** Where a qualified name leads. */
export interface ToolAddress {
  server: string;
  tool: string;
}

/**
 * The qualified name of every tool of every server, checked: a name outside the rule, or two tools under one
 * name, throws a `TypeError` naming them (a tool is never overwritten by another).
 */
export function nameTools(
  tools: readonly ToolAddress[],
  namer: ToolNamer = defaultToolName,
): Map<string, ToolAddress> {
  const index = new Map<string, ToolAddress>();
  for (const address of tools) {
    const name = namer(address.server, address.tool);
    if (typeof name !== "string" || !QUALIFIED_NAME.test(name)) {
      throw new TypeError(
        `TaskHost: toolName(${JSON.stringify(address.server)}, ${JSON.stringify(address.tool)}) gave ` +
          `${JSON.stringify(name)}, which does not match ${String(QUALIFIED_NAME)}`,
      );
    }
    const taken = index.get(name);
    if (taken !== undefined) {
      throw new TypeError(
        `TaskHost: tool ${JSON.stringify(taken.tool)} of server ${JSON.stringify(taken.server)} and tool ` +
          `${JSON.stringify(address.tool)} of server ${JSON.stringify(address.server)} both map to ` +
          `${JSON.stringify(name)}; give the host a \`toolName\` option that tells them apart`,
      );
    }
    index.set(name, address);
  }
  return index;
}
