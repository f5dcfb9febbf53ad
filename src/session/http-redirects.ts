/**
 * Redirects of requests to the MCP endpoint. `fetch` follows them by default, and on a redirect to another
 * origin it drops `Authorization` but sends every other header (an `X-Api-Key` from the `headers` option) and
 * the body (a call's arguments) to wherever the server pointed. So the client follows a redirect itself, and only
 * within the endpoint's origin (scheme, host and port alike), at most `MAX_REDIRECTS` times per request, keeping
 * the method and body: a POST follows only 307 and 308 (301, 302 and 303 would turn it into a body-less GET).
 * Anything else fails the request with a `TransportError` that names the target's origin, before a byte goes
 * there. The same holds for GET streams and every other request through the endpoint's `fetch`.
 *
 * A `fetch` that ignores `redirect: "manual"` (some wrappers build their own request) has already followed the
 * redirect when its answer arrives: an answer from another origin is then refused, though what was sent there
 * cannot be unsent. In a browser a manual redirect is opaque (its target hidden), and is refused as well.
 */
import type { FetchLike } from "../protocol/headers.js";
import { TransportError } from "../protocol/errors.js";
import { discardBody } from "./bounded-body.js";

/** At most this many redirects (each within the endpoint's origin) per request. */
export const MAX_REDIRECTS = 5;

/** Wraps `fetchImpl` so requests follow redirects within their origin only, as described above. */
export function withSameOriginRedirects(fetchImpl: FetchLike): FetchLike {
  return async (input, init) => {
    // Our transport and the SDK's ask for manual redirects already; only a caller that did not costs a copy.
    const manual = manualRedirects(init);
    const response = await fetchImpl(input, manual);
    return isRedirect(response) ? followRedirects(fetchImpl, input, manual, response) : response;
  };
}

/** `init` asking for manual redirects: itself when it does already (this library's transports and the SDK's). */
export function manualRedirects(init: RequestInit | undefined): RequestInit {
  return init?.redirect === "manual" ? init : { ...init, redirect: "manual" };
}

/**
 * Follows `response`, a redirect (see {@link isRedirect}) of the request `fetchImpl` sent to `input` with `init`
 * (manual redirects), by the rules above: the final answer, or a `TransportError` for a redirect not followed.
 */
export async function followRedirects(
  fetchImpl: FetchLike,
  input: string | URL,
  init: RequestInit,
  first: Response,
): Promise<Response> {
  let response = first;
  let url = new URL(input instanceof URL ? input.href : String(input));
  const method = (init.method ?? "GET").toUpperCase();
  const refuse = (why: string, status?: number): never => {
    throw new TransportError(`${method} ${url.origin}: ${why}; not followed`, { status, transient: false });
  };
  for (let followed = 0; ; followed++) {
    if (response.redirected) refuseFollowed(url, response, method);
    if (response.type === "opaqueredirect") refuse("redirected, and this runtime hides where to");
    const target = redirectTarget(url, response);
    if (target === undefined) return response; // a 3xx without a usable Location is the caller's to report
    await discardBody(response);
    const status = response.status;
    if (target.origin !== url.origin)
      refuse(`redirected (HTTP ${status}) to another origin, ${target.origin}`, status);
    // 301, 302 and 303 turn a POST into a GET without its body.
    if (method !== "GET" && method !== "HEAD" && status < 307)
      refuse(`HTTP ${status} would drop the body`, status);
    if (followed === MAX_REDIRECTS) refuse(`more than ${MAX_REDIRECTS} redirects`, status);
    url = target;
    response = await fetchImpl(url, init);
    if (!isRedirect(response)) return response;
  }
}

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Whether the answer is a redirect, or one a `fetch` that ignored "manual" followed (checked in the loop). */
export function isRedirect(response: Response): boolean {
  return REDIRECT_STATUSES.has(response.status) || response.redirected || response.type === "opaqueredirect";
}

function redirectTarget(from: URL, response: Response): URL | undefined {
  if (!REDIRECT_STATUSES.has(response.status)) return undefined;
  const location = response.headers.get("location");
  if (location === null) return undefined;
  try {
    return new URL(location, from);
  } catch {
    return undefined;
  }
}

/** The caller's `fetch` followed a redirect itself: its answer is kept only when it came from the same origin. */
function refuseFollowed(from: URL, response: Response, method: string): void {
  let origin: string | undefined;
  try {
    origin = new URL(response.url).origin;
  } catch {
    origin = undefined;
  }
  if (origin === from.origin) return;
  void response.body?.cancel().catch(() => undefined);
  throw new TransportError(
    `${method} ${from.origin}: the fetch in use followed a redirect to ${origin ?? "an unknown origin"} ` +
      '(it ignored redirect: "manual"); that answer is refused',
    { transient: false },
  );
}
