/**
 * A strict authorization setup for tests, on two loopback origins:
 *
 * - an authorization server (`oidc-provider`, a certified OpenID/OAuth server) with dynamic registration (RFC 7591),
 *   resource indicators (RFC 8707), PKCE, `iss` in the redirect (RFC 9207), refresh tokens rotated on every use,
 *   and every client held to the scope it registered (a scope it did not register is `invalid_scope`);
 * - an MCP endpoint on another origin: a small gate in front of the reference server that serves its
 *   protected-resource metadata (RFC 9728), checks each bearer token with the authorization server (audience and
 *   scope), names only the narrow scope in its first challenge, and asks for a wider one (403 `insufficient_scope`)
 *   for the tools listed in `wideTools`.
 *
 * `approve(url)` walks the authorization pages as a browser would (log in, consent to what was asked) and resolves
 * with the redirect to the client, counting each consent. Both servers record the requests they received.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import Provider, { errors } from "oidc-provider";
import { startTaskServer, type HttpTaskServer, type ToolDefinition } from "mcp-tasks/testing";

export const NARROW = "tasks:read";
export const WIDE = "tasks:write";

export interface SeenRequest {
  method: string;
  path: string;
  headers: Readonly<Record<string, string>>;
  /** The JSON-RPC method of a POST to the MCP endpoint. */
  rpcMethod?: string;
  status?: number;
}

export interface StrictSetup {
  /** The MCP endpoint (the gate's origin). */
  readonly url: string;
  /** The authorization server's issuer (another origin). */
  readonly issuer: string;
  readonly resourceMetadataUrl: string;
  /** Requests the authorization server received. */
  readonly asRequests: SeenRequest[];
  /** Requests the MCP endpoint received (the gate's view, with the status it answered). */
  readonly mcpRequests: SeenRequest[];
  /** What a person does in the browser: log in and consent to what the page asks, or deny. */
  approve(authorizationUrl: URL | string, options?: { deny?: boolean }): Promise<URL>;
  /** How many times the person was shown the consent page. */
  readonly consents: number;
  /** The scopes each registered client registered, in order of registration. */
  readonly registeredScopes: (string | undefined)[];
  /** Changes what the servers offer and grant, from the next request on. */
  set(change: Partial<Offer>): void;
  /** Forgets the counts and logs, and restores what the servers offered at start. */
  reset(): void;
  /** Every token request the authorization server answered: its grant type, and the OAuth error if refused. */
  readonly tokenRequests: { grantType: string; error?: string }[];
  close(): Promise<void>;
}

export interface StrictOptions extends Partial<Offer> {
  tools: ToolDefinition[];
  /** Tools whose calls need `tasks:write` as well. */
  wideTools: readonly string[];
}

export interface Offer {
  /** `scopes_supported` of the protected-resource metadata. Default both scopes; `null` leaves the field out. */
  scopesSupported: readonly string[] | null;
  /** Scopes the authorization server grants for the endpoint. Default both. */
  grantable: readonly string[];
}

export async function startStrictSetup(options: StrictOptions): Promise<StrictSetup> {
  const backend = await startTaskServer({ tools: options.tools });
  const asServer = createServer();
  const gate = createServer();
  await Promise.all([listen(asServer), listen(gate)]);
  const issuer = `http://127.0.0.1:${(asServer.address() as AddressInfo).port}`;
  const origin = `http://127.0.0.1:${(gate.address() as AddressInfo).port}`;
  const url = `${origin}/mcp`;
  const resourceMetadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
  const initial: Offer = {
    scopesSupported: options.scopesSupported === undefined ? [NARROW, WIDE] : options.scopesSupported,
    grantable: options.grantable ?? [NARROW, WIDE],
  };
  let offer = { ...initial };

  const provider = new Provider(issuer, {
    clients: [],
    scopes: ["openid", "offline_access", NARROW, WIDE, "tasks:admin"],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => url,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== url) throw new errors.InvalidTarget();
          return {
            scope: offer.grantable.join(" "),
            audience: url,
            accessTokenFormat: "opaque",
            accessTokenTTL: 3600,
          };
        },
      },
    },
    pkce: { required: () => true },
    rotateRefreshToken: true,
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["strict-authorization-test-key"] },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      Grant: 3600,
      Interaction: 600,
      RefreshToken: 86_400,
      Session: 3600,
      IdToken: 3600,
    },
  });
  provider.on("server_error", () => undefined);
  const registeredScopes: (string | undefined)[] = [];
  provider.on("registration_create.success", (_ctx, client: { scope?: string }) =>
    registeredScopes.push(client.scope),
  );

  let consents = 0;
  const asRequests: SeenRequest[] = [];
  const tokenRequests: { grantType: string; error?: string }[] = [];
  const grantType = (ctx: { oidc?: { params?: Record<string, unknown> } }) =>
    String(ctx.oidc?.params?.["grant_type"] ?? "");
  provider.on("grant.success", (ctx) => tokenRequests.push({ grantType: grantType(ctx) }));
  provider.on("grant.error", (ctx, error: { error?: string }) =>
    tokenRequests.push({ grantType: grantType(ctx), error: String(error.error) }),
  );
  const callback = provider.callback();
  asServer.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", issuer).pathname;
    asRequests.push({ method: req.method ?? "GET", path, headers: flat(req) });
    if (path.startsWith("/interaction/")) {
      void interact(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
      return;
    }
    callback(req, res);
  });

  /** The interaction page: a login, then a consent to whatever is missing (the person says yes to all). */
  async function interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    const { prompt, params } = details;
    if (new URL(req.url ?? "/", issuer).searchParams.has("deny")) {
      await provider.interactionFinished(
        req,
        res,
        { error: "access_denied" },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    if (prompt.name === "login") {
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: "person" } },
        {
          mergeWithLastSubmission: false,
        },
      );
      return;
    }
    consents++;
    const grant =
      details.grantId === undefined
        ? new provider.Grant({ accountId: "person", clientId: String(params["client_id"]) })
        : await provider.Grant.find(details.grantId);
    if (grant === undefined) throw new Error("no grant");
    const missing = prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope !== undefined) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(" "));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  const mcpRequests: SeenRequest[] = [];
  const narrowChallenge = (error: string) =>
    `Bearer error="${error}", scope="${NARROW}", resource_metadata="${resourceMetadataUrl}"`;
  gate.on("request", (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const path = new URL(req.url ?? "/", origin).pathname;
      const seen: SeenRequest = { method: req.method ?? "GET", path, headers: flat(req) };
      mcpRequests.push(seen);
      res.on("finish", () => (seen.status = res.statusCode));
      if (path === "/.well-known/oauth-protected-resource/mcp") {
        const metadata: Record<string, unknown> = {
          resource: url,
          authorization_servers: [issuer],
          bearer_methods_supported: ["header"],
        };
        if (offer.scopesSupported !== null) metadata["scopes_supported"] = offer.scopesSupported;
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(metadata));
        return;
      }
      if (path !== "/mcp") {
        res.writeHead(404).end();
        return;
      }
      const body = req.method === "POST" ? await readText(req) : undefined;
      const rpc =
        body === undefined
          ? undefined
          : (JSON.parse(body) as { method?: string; params?: { name?: string } });
      if (rpc?.method !== undefined) seen.rpcMethod = rpc.method;
      const presented = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      const token = presented === undefined ? undefined : await provider.AccessToken.find(presented);
      if (token === undefined || token.isExpired || token.aud !== url) {
        res.writeHead(401, { "www-authenticate": narrowChallenge("invalid_token") }).end();
        return;
      }
      const has = new Set(String(token.scope ?? "").split(" "));
      const needs =
        rpc?.method === "tools/call" && options.wideTools.includes(String(rpc.params?.name))
          ? [NARROW, WIDE]
          : [NARROW];
      if (!needs.every((scope) => has.has(scope))) {
        res
          .writeHead(403, {
            "www-authenticate": `Bearer error="insufficient_scope", scope="${needs.join(" ")}", resource_metadata="${resourceMetadataUrl}"`,
          })
          .end();
        return;
      }
      await forward(req, res, body, backend);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });

  return {
    url,
    issuer,
    resourceMetadataUrl,
    asRequests,
    mcpRequests,
    approve: (authorizationUrl, choice) => walk(new URL(authorizationUrl), issuer, choice?.deny === true),
    get consents() {
      return consents;
    },
    registeredScopes,
    set(change) {
      offer = { ...offer, ...change };
    },
    reset() {
      offer = { ...initial };
      consents = 0;
      for (const list of [registeredScopes, asRequests, mcpRequests, tokenRequests]) list.length = 0;
    },
    tokenRequests,
    async close() {
      await backend.close();
      for (const server of [asServer, gate]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

/** The scripted browser: follows the authorization server's redirects with its cookies until one leaves it. */
async function walk(start: URL, issuer: string, deny: boolean): Promise<URL> {
  const jar = new Map<string, string>();
  let next = start;
  for (let hop = 0; hop < 12; hop++) {
    if (next.origin !== issuer) return next;
    if (deny && next.pathname.startsWith("/interaction/")) {
      const denied = new URL(next);
      denied.searchParams.set("deny", "1");
      next = denied;
    }
    const response = await fetch(next, {
      redirect: "manual",
      headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    await response.text();
    const location = response.headers.get("location");
    if (location === null)
      throw new Error(`the authorization server answered ${response.status} without a redirect`);
    next = new URL(location, next);
  }
  throw new Error("too many redirects at the authorization server");
}

async function forward(
  req: IncomingMessage,
  res: ServerResponse,
  body: string | undefined,
  backend: HttpTaskServer,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(flat(req)))
    if (!["host", "authorization", "connection", "content-length"].includes(name)) headers.set(name, value);
  const controller = new AbortController();
  res.on("close", () => controller.abort());
  const answer = await fetch(backend.url, {
    method: req.method ?? "GET",
    headers,
    ...(body !== undefined && { body }),
    signal: controller.signal,
  });
  const out: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (!["content-length", "transfer-encoding", "connection"].includes(name)) out[name] = value;
  });
  res.writeHead(answer.status, out);
  if (answer.body === null) {
    res.end();
    return;
  }
  Readable.fromWeb(answer.body as never)
    .on("error", () => res.destroy())
    .pipe(res);
}

function flat(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
  return headers;
}

function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function listen(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
}
