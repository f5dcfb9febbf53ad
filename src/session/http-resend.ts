/**
 * One immediate resend when a pooled HTTP connection turns out to be dead under a request that is safe to send
 * twice and has no retry of its own.
 *
 * Why: `fetch` keeps connections alive between requests, and a server closes an idle one after its keep-alive
 * timeout (Node's default is 5 s). A request written onto a connection at the moment the server closes it fails
 * with a reset ("other side closed", ECONNRESET, EPIPE) although the server is fine; a new connection would have
 * worked. Under load the window is wide: a busy server process runs its expired keep-alive timer before it reads
 * the request that arrived meanwhile. Browsers resend in this case themselves; undici (Node's `fetch`) does not.
 *
 * Which requests: GETs (safe by definition: OAuth metadata discovery, and a 2025-era server's event stream), and
 * the JSON-RPC POSTs of the handshake and tool listing. Those change nothing on the server (an `initialize` at most
 * opens a session nobody uses), and nothing else retries them: a reset there would fail `connect()` or
 * `listTools()`. Every other POST stays as it was, on purpose: a `tools/call` may have started work before the
 * connection died (sending it again could start it twice); `tasks/get`, `tasks/cancel`, `tasks/update` and
 * listens have their own retry with backoff, which also keeps polls at the server's interval; OAuth token and
 * registration requests are not ours to repeat.
 */
import type { FetchLike } from "../protocol/headers.js";
import { Method } from "../protocol/constants.js";

const RESENDABLE: ReadonlySet<string> = new Set([
  Method.discover,
  Method.initialize,
  Method.initialized,
  Method.toolsList,
]);

/** The error codes of a connection that died under the request (undici puts the socket's error in `cause`). */
const DEAD_CONNECTION_CODES: ReadonlySet<string> = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);

/** Wraps `fetchImpl` so a GET or a resendable JSON-RPC POST whose connection died is sent once more, at once. */
export function withDeadConnectionResend(fetchImpl: FetchLike): FetchLike {
  // Not `async`: a request that succeeds (nearly every one) passes one promise turn here, not two.
  return (input, init) =>
    fetchImpl(input, init).catch((error: unknown) => {
      if (init?.signal?.aborted === true || !isDeadConnection(error) || !isResendable(init)) throw error;
      return fetchImpl(input, init);
    });
}

/** Whether `error` is a `fetch` failure caused by the connection closing or resetting under the request. */
export function isDeadConnection(error: unknown): boolean {
  const cause = error instanceof Error ? error.cause : undefined;
  if (typeof cause !== "object" || cause === null) return false;
  const code = (cause as { code?: unknown }).code;
  return typeof code === "string" && DEAD_CONNECTION_CODES.has(code);
}

function isResendable(init: RequestInit | undefined): boolean {
  const method = init?.method ?? "GET";
  if (method === "GET" || method === "HEAD") return true;
  if (method !== "POST" || typeof init?.body !== "string") return false;
  try {
    const message = JSON.parse(init.body) as { method?: unknown };
    return typeof message.method === "string" && RESENDABLE.has(message.method);
  } catch {
    return false;
  }
}
