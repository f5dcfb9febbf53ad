/**
 * Which protocol era a server speaks, decided from how it answers the `server/discover` probe. The rules
 * follow the spec's backward-compatibility notes and the v2 SDK's probe classifier: only a valid discover
 * result offering 2026-07-28 means `modern`; what a 2025-era server does with an unknown method (a JSON-RPC
 * error, an HTTP 4xx, or on stdio silence) means `legacy`; what says nothing about the era (auth walls, 5xx,
 * network failures, an HTTP timeout) fails the connection with that error instead of guessing.
 *
 * Observed: a v1 SDK server answers the probe with HTTP 400 and a JSON-RPC error with `id: null`
 * (stateful: -32000 "Server not initialized"; stateless: -32000 "Unsupported protocol version").
 */
import type { ClientCapabilities, DiscoverResult, Implementation } from "../schema/index.js";
import { ErrorCode, LEGACY_PROTOCOL_VERSION, PROTOCOL_VERSION } from "../protocol/constants.js";
import { parseDiscoverResult } from "../protocol/codec.js";
import { RpcError, TransportError, isTimeout } from "../protocol/errors.js";

export type TransportKind = "stdio" | "http";

/**
 * `retry`: the server refused the version the probe carried (-32022) but lists it, or another modern revision
 * this client speaks, as supported; SEP-2575 asks the client to pick a mutually supported version and send again.
 */
export type ProbeVerdict =
  { era: "modern"; discover: DiscoverResult } | { era: "legacy" } | { retry: true } | { error: unknown };

/** The revisions before 2026-07-28 this client can fall back to, newest first. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = [
  LEGACY_PROTOCOL_VERSION,
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];

/** The stdio transport is recognised by shape (`pid` and `stderr`), as the v2 SDK does: no class checks across bundles. */
export function transportKind(transport: object): TransportKind {
  return "pid" in transport && "stderr" in transport ? "stdio" : "http";
}

export type ProbeOutcome = { result: Record<string, unknown> } | { error: unknown };

/**
 * Classifies the probe's answer: `result` when it resolved, `error` when it rejected. `retried` says the probe
 * was already sent again after a -32022: a second refusal of a version the server lists is a failure, not
 * another retry.
 */
export function classifyProbe(
  outcome: ProbeOutcome,
  kind: TransportKind,
  retried: true,
): Exclude<ProbeVerdict, { retry: true }>;
export function classifyProbe(outcome: ProbeOutcome, kind: TransportKind): ProbeVerdict;
export function classifyProbe(outcome: ProbeOutcome, kind: TransportKind, retried = false): ProbeVerdict {
  if ("result" in outcome) return classifyResult(outcome.result);
  const { error } = outcome;
  if (error instanceof RpcError) {
    const verdict = classifyRpcError(error);
    return "retry" in verdict && retried ? { error } : verdict;
  }
  if (isTimeout(error)) {
    // A silent stdio server is a 2025-era one that ignores unknown requests; over HTTP silence is an outage.
    return kind === "stdio" ? { era: "legacy" } : { error };
  }
  if (error instanceof TransportError && error.status !== undefined) {
    const { status } = error;
    // 401/403 are the auth layer's, 5xx and 429 the infrastructure's: neither says which era the server is.
    if (status === 401 || status === 403 || status === 429 || status >= 500) return { error };
    return { era: "legacy" };
  }
  return { error };
}

function classifyResult(result: Record<string, unknown>): ProbeVerdict {
  let discover: DiscoverResult;
  try {
    discover = parseDiscoverResult(result);
  } catch {
    // Some 2025-era servers answer unknown methods with an empty result: not modern evidence.
    return { era: "legacy" };
  }
  return discover.supportedVersions.includes(PROTOCOL_VERSION)
    ? { era: "modern", discover }
    : { era: "legacy" };
}

/**
 * A stdio server that missed the probe's timeout (slow to start: `npx` fetching it, a loaded machine) was taken
 * for a 2025-era one; if it then refuses the 2025 `initialize` with -32022 and lists our version, it is a modern
 * server after all, worth probing once more.
 */
export function refusesLegacyForUs(error: unknown): boolean {
  return error instanceof RpcError && "retry" in classifyRpcError(error);
}

function classifyRpcError(error: RpcError): ProbeVerdict {
  if (error.code !== ErrorCode.unsupportedProtocolVersion) return { era: "legacy" };
  const supported = (error.data as { supported?: unknown } | undefined)?.supported;
  const versions = Array.isArray(supported)
    ? supported.filter((v): v is string => typeof v === "string")
    : [];
  // SEP-2575: retry with a version both sides support. Ours first; then any 2025-era revision, which the
  // initialize handshake negotiates. Only revisions newer than ours: nothing to fall back to.
  if (versions.includes(PROTOCOL_VERSION)) return { retry: true };
  return versions.some((v) => v < PROTOCOL_VERSION) ? { era: "legacy" } : { error };
}

/** Params of the 2025-era `initialize` request. The tasks extension is not declared: it is undefined there. */
export function initializeParams(
  clientInfo: Implementation,
  capabilities: ClientCapabilities,
): Record<string, unknown> {
  const { extensions: _extensions, ...legacyCapabilities } = capabilities;
  return { protocolVersion: LEGACY_PROTOCOL_VERSION, capabilities: legacyCapabilities, clientInfo };
}
