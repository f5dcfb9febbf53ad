/**
 * A `fetch` wrapper for the SDK's Streamable HTTP transports that keeps what they throw away. Both SDK lines
 * turn a failed POST into an error with the status at most (never `Retry-After`), and neither delivers a
 * JSON-RPC error body that came with a 404 (v2 delivers a 400 body only when its id matches, v1 none at all).
 * This wrapper sees the response first:
 *
 * - a 4xx with a JSON-RPC error body is handed to the transport as an ordinary JSON answer, its id set to the
 *   POSTed request's (one HTTP response answers one POST, even when the server wrote `id: null`), so the
 *   request rejects with an `RpcError`;
 * - any other failure status (5xx, 429, a 4xx without a JSON-RPC body) becomes a `TransportError` with
 *   `status`, `retryAfterMs` and `transient`, thrown from fetch, which both transports rethrow from `send()`;
 * - a network failure becomes a transient `TransportError`.
 *
 * 401 and 403 pass through untouched: they belong to the transport's auth flow. So does every GET and DELETE.
 */
import type { FetchLike } from "../protocol/headers.js";
import { AuthError, TransportError } from "../protocol/errors.js";
import { isTransientStatus, parseRetryAfter, rpcErrorInBody } from "./failures.js";
import { DEFAULT_MAX_MESSAGE_BYTES, readErrorBody } from "./bounded-body.js";

/**
 * Wraps `fetchImpl` (default: the global `fetch`, resolved per call) as described above. An error body is read
 * within `maxBodyBytes` (the connection's `maxMessageBytes`; default 16 MiB): a larger one counts as no JSON-RPC
 * error, and the status decides.
 */
export function withHttpErrorMapping(
  fetchImpl?: FetchLike,
  maxBodyBytes: number = DEFAULT_MAX_MESSAGE_BYTES,
): FetchLike {
  return async (url, init) => {
    const next = fetchImpl ?? globalThis.fetch;
    let response: Response;
    try {
      response = await next(url, init);
    } catch (error) {
      throw networkFailure(error);
    }
    return isMappedFailure(response, init) ? mapFailedAnswer(response, init?.body, maxBodyBytes) : response;
  };
}

/** What a request that threw becomes: an abort and this library's own errors as they are, the rest a transient fault. */
export function networkFailure(error: unknown): unknown {
  // An abort is the transport's own decision (close, or a request's signal); it must see it as such.
  if (error instanceof Error && error.name === "AbortError") return error;
  // Ours already (a fault mapped further in, an authorization that failed): passed on as it is.
  if (error instanceof TransportError || error instanceof AuthError) return error;
  return new TransportError(`network error: ${describeNetworkFailure(error)}`, {
    transient: true,
    cause: error,
  });
}

/** Whether an answer is a failure this mapping owns: a POST's 4xx or 5xx other than 401 and 403. */
export function isMappedFailure(response: Response, init: RequestInit | undefined): boolean {
  return !response.ok && init?.method === "POST" && response.status >= 400 && !isAuthStatus(response.status);
}

/**
 * The failure's message with its cause's, when there is one: undici (Node's `fetch`) says only "fetch failed" and
 * keeps what happened ("other side closed", ECONNRESET, a DNS failure) in `cause`.
 */
function describeNetworkFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (!(cause instanceof Error)) return error.message;
  const code = (cause as { code?: unknown }).code;
  const detail =
    typeof code === "string" && !cause.message.includes(code) ? `${cause.message}, ${code}` : cause.message;
  return `${error.message} (${detail})`;
}

function isAuthStatus(status: number): boolean {
  return status === 401 || status === 403;
}

/** A failed POST's answer (see {@link isMappedFailure}): its JSON-RPC error as an ordinary answer, or a `TransportError`. */
export async function mapFailedAnswer(
  response: Response,
  requestBody: unknown,
  maxBytes: number,
): Promise<Response> {
  const request = describeRequest(requestBody);
  // A body past the size limit is read as no JSON-RPC error: the status decides.
  const body = await readErrorBody(response, maxBytes);
  const status = response.status;
  const rpcError = rpcErrorInBody(body);
  // A server in trouble (5xx) or shedding load (429) is retried whatever its body says.
  if (rpcError !== undefined && request.id !== undefined && !isTransientStatus(status)) {
    const answer = JSON.stringify({ jsonrpc: "2.0", id: request.id, error: rpcError });
    return new Response(answer, { status: 200, headers: { "content-type": "application/json" } });
  }
  throw new TransportError(`${request.method ?? "request"}: the server answered HTTP ${status}`, {
    status,
    retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
    transient: isTransientStatus(status),
  });
}

function describeRequest(body: unknown): { id: string | number | undefined; method: string | undefined } {
  if (typeof body !== "string") return { id: undefined, method: undefined };
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown };
    const id = typeof message.id === "string" || typeof message.id === "number" ? message.id : undefined;
    return { id, method: typeof message.method === "string" ? message.method : undefined };
  } catch {
    return { id: undefined, method: undefined };
  }
}
