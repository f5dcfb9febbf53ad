/**
 * `mcp-tasks login <url>` and `mcp-tasks logout <url>`. Login is the OAuth authorization-code flow with PKCE and
 * a loopback redirect (RFC 8252): a one-shot HTTP listener on 127.0.0.1, the authorization URL printed (and opened
 * in a browser when there is one), dynamic client registration when the server offers it. It runs through
 * `TaskClient.connect` with the file-backed provider, so what it stores is exactly what every later command uses.
 * The authorization URL comes from the server: only https:// (or http:// to this machine) is shown or opened.
 * The listener takes only the redirect that carries the `state` this login sent; anything else arriving there
 * (a page on another site can make the browser request it) is answered 400 and the login keeps waiting.
 */
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { AuthError, TaskClient } from "../index.js";
import { silentLogger } from "../protocol/logging.js";
import { oauth } from "../auth/oauth/index.js";
import { withSdkWarningsTo } from "../auth/oauth/sdk-console.js";
import { DEFAULT_MAX_MESSAGE_BYTES, limitResponse } from "../session/bounded-body.js";
import type { FetchLike } from "../protocol/headers.js";
import { firstLine, type Invocation } from "./args.js";
import { openInBrowser, unsafeLink } from "./browser.js";
import { credentialsFileFor, CredentialsProvider, tokenIssuer, type Credentials } from "./credentials.js";
import { ExitCode, UsageError } from "./exit-codes.js";
import { NotPrivateError } from "./private-files.js";
import { configServer } from "./config.js";
import { urlServer } from "./connect.js";
import type { Output } from "./output.js";

interface Io {
  stdout: Output;
  stderr: Output;
}

/** How long login waits for the browser to come back, unless `--timeout` says otherwise. */
const LOGIN_TIMEOUT_MS = 300_000;

export async function login(invocation: Invocation, io: Io): Promise<number> {
  const url = onlyUrl(invocation, "login");
  const file = credentialsFileFor(url);
  const { timeoutMs = LOGIN_TIMEOUT_MS, scope, json } = invocation.options;
  let sentState: string | undefined; // the state in the authorization URL: the listener takes only its answer
  let refusedUrl: string | undefined;
  let asked: URL | undefined;
  const callback = await listenForCallback(() => sentState);
  const provider = new CredentialsProvider(
    file,
    { v: 1, server: url, redirectUrl: callback.url },
    (authorizationUrl) => {
      refusedUrl = unsafeLink(authorizationUrl.href);
      if (refusedUrl !== undefined) return; // neither shown nor opened; the login fails below
      sentState = authorizationUrl.searchParams.get("state") ?? undefined;
      asked = authorizationUrl;
      // For scripts: one JSON line on stdout with the URL to open.
      if (json) io.stdout.write(`${JSON.stringify({ event: "authorize", url: authorizationUrl.href })}\n`);
      io.stderr.write(`Open this URL in a browser to authorize mcp-tasks:\n\n  ${authorizationUrl.href}\n\n`);
      if (!invocation.options.noBrowser) openInBrowser(authorizationUrl.href);
      io.stderr.write("Waiting for the browser to come back…\n");
    },
  );
  const log = cliLogger(io);
  try {
    if (scope !== undefined) {
      await authorizeScope(provider, url, scope, log, async () => {
        const response = await callback.response(timeoutMs);
        return { response, asked };
      });
    }
    const client = await TaskClient.connect(url, {
      clientInfo: { name: "mcp-tasks-cli", version: "0.1.0" },
      auth: oauth(provider, {
        authorizationResponse: () =>
          refusedUrl === undefined
            ? callback.response(timeoutMs)
            : Promise.reject(new Error(`refused the authorization URL: ${refusedUrl}`)),
      }),
      requestTimeoutMs: timeoutMs + 30_000,
      logger: log,
    });
    await client.close();
  } catch (error) {
    if (refusedUrl !== undefined) {
      io.stderr.write(
        `mcp-tasks: cannot log in to ${url}: its authorization URL was not shown or opened, because ${refusedUrl}\n`,
      );
      file.remove();
      return ExitCode.auth;
    }
    if (error instanceof AuthError) {
      const why = error.cause instanceof Error ? `: ${firstLine(error.cause)}` : "";
      io.stderr.write(`mcp-tasks: cannot log in to ${url}: ${firstLine(error)}${why}\n`);
      file.remove();
      return ExitCode.auth;
    }
    throw new UsageError(`cannot connect to ${url}: ${firstLine(error)}`);
  } finally {
    callback.close();
  }
  const tokens = provider.tokens();
  if (tokens === undefined) {
    file.remove();
    io.stderr.write(`${url} did not ask for authorization; nothing was stored\n`);
    if (json) io.stdout.write(`${JSON.stringify({ event: "loggedIn", server: url, stored: false })}\n`);
    return ExitCode.completed;
  }
  const granted = typeof tokens.scope === "string" ? tokens.scope : undefined;
  io.stderr.write(
    `logged in to ${url}${granted === undefined ? "" : ` (scope "${granted.replace(/[^\x20-\x7e]/g, "")}")`}; tokens stored in ${file.path} (readable by you only)\n`,
  );
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ event: "loggedIn", server: url, stored: true, ...(granted !== undefined && { scope: granted }) })}\n`,
    );
  }
  return ExitCode.completed;
}

/** The command's warnings (the OAuth code's among them) as `warning:` lines on stderr. */
function cliLogger(io: Io): { warn(message: string): void } {
  return {
    warn: (message) => io.stderr.write(`warning: ${String(message).replace(/\p{Cc}/gu, " ")}\n`),
  };
}

/**
 * `login --scope`: asks the authorization server for `scope` itself (the SDK's `auth()`), instead of the scope of
 * the server's first challenge, and exchanges the code. The login's fresh registration registers it too.
 */
async function authorizeScope(
  provider: CredentialsProvider,
  url: string,
  scope: string,
  log: { warn(message: string): void },
  response: () => Promise<{ response: URL; asked: URL | undefined }>,
): Promise<void> {
  const { auth } = await import("@modelcontextprotocol/client");
  const fail = (cause: unknown): never => {
    const oauthError = (cause as { code?: unknown } | undefined)?.code;
    throw new AuthError({
      method: "authorize",
      reason: "authorization_failed",
      scope,
      ...(typeof oauthError === "string" && { oauthError }),
      cause,
    });
  };
  const logger = { ...silentLogger, warn: log.warn };
  try {
    const started = await withSdkWarningsTo(logger, () =>
      auth(provider, { serverUrl: url, scope, forceReauthorization: true, fetchFn: boundedFetch }),
    );
    if (started === "AUTHORIZED") return;
    const { response: callback, asked } = await response();
    if (asked === undefined || callback.searchParams.get("state") !== asked.searchParams.get("state")) {
      fail(new Error("the authorization response's state does not match the request's"));
    }
    const code = callback.searchParams.get("code");
    if (code === null) {
      const error = callback.searchParams.get("error") ?? "no code";
      fail(
        Object.assign(new Error(callback.searchParams.get("error_description") ?? error), { code: error }),
      );
    }
    const iss = callback.searchParams.get("iss") ?? undefined;
    await withSdkWarningsTo(logger, () =>
      auth(provider, {
        serverUrl: url,
        scope,
        authorizationCode: code!,
        fetchFn: boundedFetch,
        ...(iss !== undefined && { iss }),
      }),
    );
  } catch (error) {
    if (error instanceof AuthError) throw error;
    fail(error);
  }
}

/**
 * `fetch` for the OAuth requests `login --scope` makes itself: every answer is held to `maxMessageBytes`' default
 * (decoded size, as the client's own OAuth path holds them), so an authorization server cannot fill memory.
 */
const boundedFetch: FetchLike = async (input, init) => {
  const response = await fetch(input, init);
  const { origin, pathname } = new URL(input instanceof URL ? input.href : String(input));
  return limitResponse(response, DEFAULT_MAX_MESSAGE_BYTES, `${init?.method ?? "GET"} ${origin}${pathname}`);
};

/**
 * For a command on a terminal with stored credentials: completes a step-up (or a new login) that a request
 * started, as `login` would — the URL printed (and opened), the redirect awaited on the loopback port the client
 * registered — so a call that needs a wider scope asks the user once and carries on.
 */
export function terminalAuthorization(
  redirectUrl: string,
  options: { noBrowser: boolean; timeoutMs: number; say: (text: string) => void },
): (authorizationUrl: URL) => Promise<URL> {
  return async (authorizationUrl) => {
    const refused = unsafeLink(authorizationUrl.href);
    if (refused !== undefined) throw new Error(`refusing the authorization URL: ${refused}`);
    const state = authorizationUrl.searchParams.get("state") ?? undefined;
    const callback = await listenForCallback(() => state, Number(new URL(redirectUrl).port));
    try {
      const scope = authorizationUrl.searchParams.get("scope");
      options.say(
        `the server asks for authorization${scope === null ? "" : ` (scope "${scope.replace(/[^\x20-\x7e]/g, "")}")`}; open this URL in a browser:\n\n  ${authorizationUrl.href}\n`,
      );
      if (!options.noBrowser) openInBrowser(authorizationUrl.href);
      return await callback.response(options.timeoutMs);
    } finally {
      callback.close();
    }
  };
}

/** How long a command on a terminal waits for the browser during a step-up. */
export const STEP_UP_TIMEOUT_MS = LOGIN_TIMEOUT_MS;

export async function logout(invocation: Invocation, io: Io): Promise<number> {
  const url = onlyUrl(invocation, "logout");
  const file = credentialsFileFor(url);
  let stored;
  try {
    stored = file.load();
  } catch (error) {
    if (!(error instanceof NotPrivateError)) throw error;
    file.remove(); // not trusted enough to revoke with: its endpoint and tokens may be anyone's
    io.stderr.write(`removed ${file.path} without revoking anything: ${error.message}\n`);
    return ExitCode.completed;
  }
  if (stored === undefined) {
    io.stderr.write(`no stored credentials for ${url}\n`);
    return ExitCode.completed;
  }
  const revoked = await revoke(stored);
  file.remove();
  io.stderr.write(
    `logged out of ${url}: removed ${file.path}${revoked === undefined ? "" : ` (${revoked})`}\n`,
  );
  return ExitCode.completed;
}

function onlyUrl(invocation: Invocation, command: string): string {
  const [word, ...rest] = invocation.operands;
  if (word === undefined) throw new UsageError(`missing the server URL: mcp-tasks ${command} <url>`);
  if (rest.length > 0) throw new UsageError(`unexpected ${JSON.stringify(rest[0])}`);
  const { config } = invocation;
  if (config !== undefined && Object.hasOwn(config.servers, word)) {
    const named = configServer(config, word);
    if (named.url === undefined)
      throw new UsageError(`${word} is a stdio server in ${config.path}: ${command} applies to URL servers`);
    return named.url;
  }
  return urlServer(word).label;
}

/**
 * Asks the authorization server that issued the tokens to revoke the grant (RFC 7009), when it has a revocation
 * endpoint; says what happened, or undefined when there was nothing to ask. Only the issuer ever sees the token:
 * after the server moved to another authorization server, the stored discovery state is the new one's, and the
 * old tokens are revoked where they were issued (`issuedBy`), or not at all when that is not known. Never throws:
 * the local file goes either way.
 */
async function revoke(stored: Credentials): Promise<string | undefined> {
  const token = stored.tokens?.refresh_token ?? stored.tokens?.access_token;
  if (token === undefined) return undefined;
  const issuer = tokenIssuer(stored);
  if (issuer === undefined) {
    return "not revoked: which authorization server issued them is not known, and no other may see them";
  }
  const endpoint = issuer.revocationEndpoint;
  if (endpoint === undefined) return undefined;
  try {
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, client_id: issuer.clientId }),
      signal: AbortSignal.timeout(5_000),
    });
    await response.body?.cancel();
    return response.ok
      ? "the server revoked the tokens"
      : `the server did not revoke them: HTTP ${response.status}`;
  } catch (error) {
    return `could not reach the server to revoke them: ${firstLine(error)}`;
  }
}

/**
 * A loopback listener for the authorization response (`/callback?code=…&state=…&iss=…`). Only a response that
 * carries the state the login sent (`sentState`), once per state, is taken; any other request to `/callback` is
 * answered 400 and ignored, so a forged one cannot end the login. At most one response waits to be taken, and
 * the login waits no longer than its `--timeout`. It listens on `port` (a step-up's: the one registered at login),
 * or on any free one.
 */
async function listenForCallback(
  sentState: () => string | undefined,
  wanted = 0,
): Promise<{
  url: string;
  response(timeoutMs: number): Promise<URL>;
  close(): void;
}> {
  let arrived: URL | undefined;
  const answered = new Set<string>();
  let waiting: ((url: URL) => void) | undefined;
  const server: HttpServer = createServer((req, res) => {
    const url = new URL(req.url ?? "/", `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    if (req.method !== "GET" || url.pathname !== "/callback") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
      return;
    }
    const state = sentState();
    const ours = state !== undefined && url.searchParams.get("state") === state && !answered.has(state);
    const granted = ours && url.searchParams.has("code");
    res
      .writeHead(granted ? 200 : 400, {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
      })
      .end(
        `<!doctype html><meta charset="utf-8"><title>mcp-tasks</title><p>${
          !ours
            ? "This is not the answer mcp-tasks is waiting for: ignored."
            : granted
              ? "Authorized. You can close this window and return to the terminal."
              : "Authorization was not granted."
        }</p>`,
      );
    if (!ours) return;
    answered.add(state);
    if (waiting !== undefined) waiting(url);
    else arrived = url;
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(wanted, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const timers = new Set<ReturnType<typeof setTimeout>>();
  return {
    url: `http://127.0.0.1:${port}/callback`,
    response: (timeoutMs) =>
      new Promise<URL>((resolve, reject) => {
        const early = arrived;
        arrived = undefined;
        if (early !== undefined) return resolve(early);
        const timer = setTimeout(() => {
          waiting = undefined;
          reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`));
        }, timeoutMs);
        timers.add(timer);
        waiting = (url) => {
          waiting = undefined;
          clearTimeout(timer);
          resolve(url);
        };
      }),
    close: () => {
      for (const timer of timers) clearTimeout(timer);
      server.close();
      server.closeAllConnections();
    },
  };
}
