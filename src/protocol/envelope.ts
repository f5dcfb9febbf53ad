/**
 * The per-request `_meta` envelope of protocol revision 2026-07-28. A modern server keeps no connection
 * state, so every request repeats who the client is and what it can do; the tasks extension is declared on
 * every one of them, because a server may create a task (or serve `tasks/*`) only for a request that declared it.
 */
import type { ClientCapabilities, Implementation } from "../schema/index.js";
import { MetaKey, PROTOCOL_VERSION, TASKS_EXTENSION_ID } from "./constants.js";

/** The envelope entries of a request's `_meta`. Built once per session: it never changes between requests. */
export interface RequestEnvelope {
  readonly [MetaKey.protocolVersion]: string;
  readonly [MetaKey.clientInfo]: Implementation;
  readonly [MetaKey.clientCapabilities]: ClientCapabilities;
}

export interface EnvelopeOptions {
  clientInfo: Implementation;
  /**
   * What the host can do (elicitation, sampling, roots: only those it has handlers for). The tasks extension
   * is added whatever this says.
   */
  capabilities?: ClientCapabilities;
}

/** Builds the frozen envelope a session attaches to every modern-era request. */
export function buildEnvelope(options: EnvelopeOptions): RequestEnvelope {
  // A deep copy: the envelope is frozen below, and the caller's objects must stay theirs.
  const capabilities = structuredClone(options.capabilities ?? {});
  const declared: ClientCapabilities = {
    ...capabilities,
    extensions: { ...capabilities.extensions, [TASKS_EXTENSION_ID]: {} },
  };
  return deepFreeze({
    [MetaKey.protocolVersion]: PROTOCOL_VERSION,
    [MetaKey.clientInfo]: structuredClone(options.clientInfo),
    [MetaKey.clientCapabilities]: declared,
  });
}

/**
 * Returns request params carrying the envelope. The caller's params are not modified. `_meta` entries the
 * caller passed are merged beside the envelope's, but the envelope's own keys always win: a request whose
 * protocol version, identity or declaration of the tasks extension a caller replaced could be answered with
 * a task the client was never told to expect (or not at all), so those keys are not the caller's to set.
 */
export function withEnvelope(
  params: Record<string, unknown>,
  envelope: RequestEnvelope,
): Record<string, unknown> {
  const callerMeta = params._meta;
  return withMeta(params, isPlainRecord(callerMeta) ? { ...callerMeta, ...envelope } : envelope);
}

/**
 * Request params carrying `extra` `_meta` entries (trace context) under the caller's own entries and, on the
 * modern era, the envelope: a key the caller set is never overwritten, and the envelope still wins over both.
 */
export function withExtraMeta(
  params: Record<string, unknown>,
  envelope: RequestEnvelope | undefined,
  extra: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const callerMeta = params._meta;
  if (isPlainRecord(callerMeta)) return withMeta(params, mergeMeta([extra, callerMeta, envelope]));
  return withMeta(params, sharedMeta(extra, envelope));
}

/**
 * Trace context and envelope merged once and shared, frozen, by every request that has no `_meta` of its own
 * (every poll of a task carries the same two): merging them again per request was the costliest step of a traced
 * poll. Keyed by the trace context object, which lives as long as its task.
 */
const merged = new WeakMap<
  object,
  { envelope: RequestEnvelope | undefined; meta: Record<string, unknown> }
>();

function sharedMeta(extra: object, envelope: RequestEnvelope | undefined): Record<string, unknown> {
  const known = merged.get(extra);
  if (known !== undefined && known.envelope === envelope) return known.meta;
  const meta = Object.freeze(mergeMeta([extra, envelope]));
  merged.set(extra, { envelope, meta });
  return meta;
}

/** Later sources win. A copy by hand, like `withMeta`'s: spreading three objects costs microseconds on Node 20. */
function mergeMeta(sources: readonly (object | undefined)[]): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  for (const source of sources) {
    if (source === undefined) continue;
    for (const key of Object.keys(source)) {
      const value = (source as Record<string, unknown>)[key];
      if (key === "__proto__") Object.defineProperty(meta, key, { ...ownData, value });
      else meta[key] = value;
    }
  }
  return meta;
}

function withMeta(params: Record<string, unknown>, meta: unknown): Record<string, unknown> {
  // A copy by hand, not `{ ...params, _meta }`: that spread costs microseconds on Node 20, on every request.
  const framed: Record<string, unknown> = {};
  for (const key of Object.keys(params)) {
    if (key === "__proto__") Object.defineProperty(framed, key, { ...ownData, value: params[key] });
    else framed[key] = params[key];
  }
  framed._meta = meta;
  return framed;
}

const ownData = { enumerable: true, writable: true, configurable: true };

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// The envelope object is shared by every request of a session; freezing it keeps one request from editing
// what all the others send.
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
