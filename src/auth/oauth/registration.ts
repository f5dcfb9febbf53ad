/**
 * Dynamic client registration (RFC 7591) for every scope the protected resource offers.
 *
 * The SDK registers the client with the scope it is about to ask for: the first challenge's `scope` when it names
 * one. An authorization server that holds each client to the scope it registered (oidc-provider does) then refuses
 * a later step-up to a wider scope with `invalid_scope`, and the only way on would be a new registration and a
 * second consent. So the registration request is widened here to also list the resource's `scopes_supported`
 * (RFC 9728): registering a scope grants nothing by itself; each authorization still asks only for what the
 * server's challenge named, and the user consents to that.
 *
 * The SDK gives no hook for the registered scope, so this is done on the way out: the one JSON POST the SDK's
 * OAuth code sends to an authorization server is the registration request.
 */
import type { FetchLike } from "mcp-tasks/transport";

/** A scope token (RFC 6749 §3.3). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]{1,200}$/;
/** At most this many offered scopes are registered; a resource that offers more is not believed. */
const MAX_SCOPES = 64;

/** What the client learned of the protected resource's scopes, from its metadata as the SDK read or saved it. */
export class ResourceScopes {
  private offered: string[] | undefined;

  /** Notes the `scopes_supported` of protected-resource metadata (the SDK's discovery state or the response). */
  note(resourceMetadata: unknown): void {
    const supported = (resourceMetadata as { scopes_supported?: unknown } | undefined)?.scopes_supported;
    if (!Array.isArray(supported) || supported.length > MAX_SCOPES) return;
    const scopes = supported.filter(
      (scope): scope is string => typeof scope === "string" && SCOPE_TOKEN.test(scope),
    );
    if (scopes.length === supported.length) this.offered = scopes;
  }

  /** Notes the protected-resource metadata in a response to a metadata request, if it is one. */
  async noteResponse(url: string, response: Response): Promise<void> {
    if (!response.ok || !new URL(url).pathname.startsWith("/.well-known/oauth-protected-resource")) return;
    const length = Number(response.headers.get("content-length") ?? 0);
    if (length > 256 * 1024) return;
    try {
      this.note(await response.clone().json());
    } catch {
      // not JSON: the SDK reports it
    }
  }

  get scopes(): readonly string[] | undefined {
    return this.offered;
  }
}

/**
 * Wraps the fetch of OAuth requests so a registration request also registers the resource's offered scopes
 * (added after the scope the SDK chose, so the union keeps its order) and protected-resource metadata is noted.
 */
export function registeringOfferedScopes(fetchImpl: FetchLike, known: ResourceScopes): FetchLike {
  return async (input, init) => {
    const url = input instanceof URL ? input.href : String(input);
    const widened = widenRegistration(init, known.scopes);
    const response = await fetchImpl(input, widened ?? init);
    if ((init?.method ?? "GET") === "GET") await known.noteResponse(url, response);
    return response;
  };
}

function widenRegistration(
  init: RequestInit | undefined,
  offered: readonly string[] | undefined,
): RequestInit | undefined {
  if (offered === undefined || offered.length === 0) return undefined;
  if (init?.method !== "POST" || typeof init.body !== "string") return undefined;
  if (!/application\/json/i.test(new Headers(init.headers).get("content-type") ?? "")) return undefined;
  let metadata: Record<string, unknown>;
  try {
    metadata = JSON.parse(init.body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const isRegistration =
    typeof metadata === "object" &&
    metadata !== null &&
    (Array.isArray(metadata["redirect_uris"]) || Array.isArray(metadata["grant_types"]));
  if (!isRegistration) return undefined;
  const asked = typeof metadata["scope"] === "string" ? metadata["scope"].split(/\s+/).filter(Boolean) : [];
  const scope = [...new Set([...asked, ...offered])].join(" ");
  return { ...init, body: JSON.stringify({ ...metadata, scope }) };
}
