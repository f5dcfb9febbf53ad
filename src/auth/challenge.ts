/**
 * What a server said when it refused a request's credentials: the `WWW-Authenticate` challenge of a 401 or 403
 * (RFC 6750 §3, RFC 9728 §5.1), read into the fields an `AuthError` carries. The HTTP layer records each refusal
 * under the JSON-RPC id of the request it answered, so the error made when that request fails can name the
 * challenge, whichever layer (ours or the SDK's OAuth code) gave up on it.
 */
import { AuthError, type AuthFailure } from "../protocol/errors.js";
import { taskIdOf } from "../session/failures.js";

/** A 401 or 403 as the server sent it. */
export interface Refusal {
  status: number;
  /** The `WWW-Authenticate` header, verbatim; undefined when absent. */
  challenge: string | undefined;
}

export interface ChallengeParams {
  error?: string;
  errorDescription?: string;
  scope?: string;
  resourceMetadataUrl?: string;
}

/**
 * The parameters of the `Bearer` challenge in a `WWW-Authenticate` value (or of its first challenge when none is
 * `Bearer`). Unreadable text yields what could be read before it; nothing here throws.
 */
export function readChallenge(header: string | undefined): ChallengeParams {
  if (header === undefined) return {};
  const challenges = splitChallenges(header);
  const chosen = challenges.find((c) => c.scheme.toLowerCase() === "bearer") ?? challenges[0];
  const params = chosen?.params ?? new Map<string, string>();
  const read: ChallengeParams = {};
  const error = params.get("error");
  const description = params.get("error_description");
  const scope = params.get("scope");
  const metadata = params.get("resource_metadata");
  if (error !== undefined) read.error = error;
  if (description !== undefined) read.errorDescription = description;
  if (scope !== undefined) read.scope = scope;
  if (metadata !== undefined) read.resourceMetadataUrl = metadata;
  return read;
}

interface Challenge {
  scheme: string;
  params: Map<string, string>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;

/** `Scheme a=1, b="two", Other c=3` → two challenges. Parameter names are lower-cased. */
function splitChallenges(header: string): Challenge[] {
  const challenges: Challenge[] = [];
  let rest = header.trim();
  let current: Challenge | undefined;
  for (let guard = 0; rest.length > 0 && guard < 256; guard++) {
    rest = rest.replace(/^[\s,]+/, "");
    const name = TOKEN.exec(rest)?.[0];
    if (name === undefined) break;
    const after = rest.slice(name.length).replace(/^\s*/, "");
    if (after.startsWith("=") && !after.startsWith("==") && current !== undefined) {
      const value = readValue(after.slice(1).replace(/^\s*/, ""));
      if (value === undefined) break;
      current.params.set(name.toLowerCase(), value.value);
      rest = value.rest;
    } else {
      // A new challenge: its scheme, then (maybe) a token68 we have no use for.
      current = { scheme: name, params: new Map() };
      challenges.push(current);
      rest = after;
      const token68 = /^[A-Za-z0-9\-._~+/]+=*(?=\s*(,|$))/.exec(rest);
      if (token68 !== null && !/^[^=\s,]+\s*=\s*[^=]/.test(rest)) rest = rest.slice(token68[0].length);
    }
  }
  return challenges;
}

function readValue(text: string): { value: string; rest: string } | undefined {
  if (!text.startsWith('"')) {
    const token = TOKEN.exec(text)?.[0];
    return token === undefined ? undefined : { value: token, rest: text.slice(token.length) };
  }
  let value = "";
  for (let i = 1; i < text.length; i++) {
    const char = text[i] as string;
    if (char === "\\" && i + 1 < text.length) value += text[++i];
    else if (char === '"') return { value, rest: text.slice(i + 1) };
    else value += char;
  }
  return undefined; // an unterminated quoted string
}

/** The refusals of requests in flight, by JSON-RPC id, so the error made when one fails can name its challenge. */
export class RefusalLog {
  private readonly byId = new Map<string, Refusal>();

  /** Notes a 401/403 for the POST whose body is `body` (a request with an id; anything else is ignored). */
  note(body: unknown, refusal: Refusal): void {
    const id = requestIdIn(body);
    if (id !== undefined) this.byId.set(id, refusal);
  }

  /** The latest refusal of this request, forgotten on the way out. */
  take(id: string | number | undefined): Refusal | undefined {
    if (id === undefined) return undefined;
    const key = String(id);
    const refusal = this.byId.get(key);
    this.byId.delete(key);
    return refusal;
  }
}

function requestIdIn(body: unknown): string | undefined {
  if (typeof body !== "string" || !body.includes('"id"')) return undefined;
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown };
    if (typeof message.method !== "string") return undefined;
    return typeof message.id === "string" || typeof message.id === "number" ? String(message.id) : undefined;
  } catch {
    return undefined;
  }
}

/** The request a failed `send()` carried: its id, method, and the task it was about. */
export interface SentRequest {
  id: string | number | undefined;
  method: string;
  taskId: string | undefined;
}

export function describeSent(message: unknown): SentRequest {
  const frame = (typeof message === "object" && message !== null ? message : {}) as Record<string, unknown>;
  const id = typeof frame.id === "string" || typeof frame.id === "number" ? frame.id : undefined;
  const method = typeof frame.method === "string" ? frame.method : "request";
  const params = typeof frame.params === "object" && frame.params !== null ? frame.params : {};
  return { id, method, taskId: taskIdOf(method, params as Record<string, unknown>) };
}

/** The `AuthError` for a request the server refused (401/403), with what its challenge said. */
export function refusalError(request: SentRequest, refusal: Refusal, cause?: unknown): AuthError {
  const params = readChallenge(refusal.challenge);
  let reason: AuthFailure = "unauthorized";
  if (refusal.status === 403)
    reason = params.error === "insufficient_scope" ? "insufficient_scope" : "forbidden";
  return new AuthError({
    method: request.method,
    reason,
    status: refusal.status,
    ...(request.taskId !== undefined && { taskId: request.taskId }),
    ...(refusal.challenge !== undefined && { challenge: refusal.challenge }),
    ...(params.scope !== undefined && { scope: params.scope }),
    ...(params.error !== undefined && { oauthError: params.error }),
    ...(params.errorDescription !== undefined && { errorDescription: params.errorDescription }),
    ...(params.resourceMetadataUrl !== undefined && { resourceMetadataUrl: params.resourceMetadataUrl }),
    ...(cause !== undefined && { cause }),
  });
}

/** The `AuthError` for a request whose credentials could not be had (or whose authorization was left pending). */
export function credentialsError(
  request: SentRequest,
  reason: "authorization_required" | "authorization_failed",
  cause: unknown,
): AuthError {
  return new AuthError({
    method: request.method,
    reason,
    ...(request.taskId !== undefined && { taskId: request.taskId }),
    cause,
  });
}
