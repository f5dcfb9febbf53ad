/**
 * The `auth` option of `TaskClient.connect`: an authorization plug-in that builds a URL target's transport around
 * the client's HTTP layer. The OAuth one, `oauth()`, lives in its own entry (`mcp-tasks/oauth`) because it drives
 * the SDK's transport and OAuth code: a one-file bundle of the main entry would otherwise carry all of it
 * (esbuild inlines a lazy `import()` when it does not split), and a client without OAuth should not.
 *
 * The plug-in gets what it needs of the client's error handling from the client that connects (`failures`), so
 * its entry imports nothing of the main entry at run time and an `AuthError` it throws is the connecting copy's.
 */
import type { FetchLike } from "../protocol/headers.js";
import type { Logger } from "../protocol/logging.js";
import { AuthError } from "../protocol/errors.js";
import type { HttpSession, McpTransport } from "../session/types.js";
import { claimFailure } from "../session/failures.js";
import { describeSent, refusalError, type RefusalLog } from "./challenge.js";
import { authFailure } from "./failures.js";

/**
 * How a URL connection authorizes beyond static `headers`: the `auth` option of `TaskClient.connect`. Make one with
 * `oauth(provider, { authorizationResponse })` from `mcp-tasks/oauth`.
 */
export interface ConnectionAuth {
  /** The scheme the plug-in runs (`"oauth"`). */
  readonly kind: "oauth";
  /**
   * Builds the transport of a URL target around the client's HTTP layer (typed for the client in `AuthPlugin`,
   * so the public declarations carry none of its internals).
   * @internal
   */
  transport(parts: never): Promise<McpTransport>;
}

/** A plug-in as the client calls it and `oauth()` makes it. */
export interface AuthPlugin extends ConnectionAuth {
  transport(parts: AuthTransportParts): Promise<McpTransport>;
}

/** What the client hands an authorization plug-in for one URL target. */
export interface AuthTransportParts {
  url: URL;
  /** The fetch for requests to the MCP endpoint (the client's whole HTTP layer). */
  endpoint: FetchLike;
  /** The fetch for everything else (OAuth metadata, registration, token requests). */
  base: FetchLike;
  /** The 401/403 answers of requests in flight, by JSON-RPC id. */
  refusals: RefusalLog;
  /** Where the OAuth code's own warnings go (the client's logger). */
  log: Logger;
  failures: AuthFailures;
  /** The client's bounds (`maxMessageBytes`, one answer per request) for bodies another transport reads. */
  bounds: AuthBounds;
  /** A session another connection opened, to send in. */
  join?: HttpSession;
}

/** The client's bounds on what servers send, for bodies the plug-in's own transport reads. */
export interface AuthBounds {
  /** The largest body or SSE event taken from a server (`maxMessageBytes`). */
  maxBytes: number;
  /** Records why a request's response stream failed (a limit passed), for the client's session to report. */
  noteStreamFailure(id: string | number, error: Error): void;
}

/** The client's reading of failed sends, passed to the plug-in rather than imported by it. */
export interface AuthFailures {
  describeSent: typeof describeSent;
  authFailure: typeof authFailure;
  refusalError: typeof refusalError;
  isAuthError(error: unknown): error is AuthError;
  /** Marks a failure as the request's own (the SDK also reports it on `onerror`). */
  claimFailure: typeof claimFailure;
}

export const authFailures: AuthFailures = {
  describeSent,
  authFailure,
  refusalError,
  isAuthError: (error): error is AuthError => error instanceof AuthError,
  claimFailure,
};

/** Throws the `TypeError` a caller mistake deserves: `auth` that is not a plug-in, or the options that moved. */
export function checkConnectionAuth(options: {
  auth?: unknown;
  authProvider?: unknown;
  authorizationResponse?: unknown;
}): AuthPlugin | undefined {
  if (options.authProvider !== undefined || options.authorizationResponse !== undefined) {
    throw new TypeError(
      "TaskClient: `authProvider` moved: pass `auth: oauth(authProvider, { authorizationResponse })` of mcp-tasks/oauth",
    );
  }
  const { auth } = options;
  if (auth === undefined) return undefined;
  const candidate = auth as Partial<Record<string, unknown>> | null;
  if (typeof candidate !== "object" || candidate === null || typeof candidate.transport !== "function") {
    // Most likely an OAuth provider given as it is: the message shows how to wrap it.
    throw new TypeError("TaskClient: `auth` must be `oauth(provider)` of mcp-tasks/oauth");
  }
  return auth as AuthPlugin;
}
