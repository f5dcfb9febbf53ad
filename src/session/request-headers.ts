/**
 * Headers for one request, on a transport whose `fetch` this library made. The SDK transports take no
 * per-request headers, so the caller files them under the request's JSON-RPC id (`RequestOptions.onId`) and
 * the endpoint's `fetch` (./http-transport.ts) adds them to the POST that carries that id. Nothing is parsed
 * while nothing is filed, so polls pay nothing for it.
 */

export class RequestHeaders {
  private readonly byId = new Map<string, Record<string, string>>();

  /**
   * Files headers for the request with this id. Every POST carrying the id gets them, so a resend of the same
   * message (after a 401 and a token refresh) carries them too, until the caller drops them.
   */
  file(id: string, headers: Record<string, string>): void {
    this.byId.set(id, headers);
  }

  /** Forgets a request's headers (it was sent, or failed before its POST). */
  drop(id: string): void {
    this.byId.delete(id);
  }

  /** `init` with the headers filed for the request its POST body carries; itself when there are none. */
  apply<T extends RequestInit | undefined>(init: T): T {
    if (this.byId.size === 0 || init?.method !== "POST" || typeof init.body !== "string") return init;
    const id = requestIdOf(init.body);
    const extra = id === undefined ? undefined : this.byId.get(id);
    if (extra === undefined) return init;
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return { ...init, headers };
  }
}

function requestIdOf(body: string): string | undefined {
  try {
    const message = JSON.parse(body) as { id?: unknown };
    return typeof message.id === "string" ? message.id : undefined;
  } catch {
    return undefined;
  }
}
