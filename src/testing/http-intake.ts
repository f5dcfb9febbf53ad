/**
 * What every HTTP request to a reference server goes through first, in both protocol generations: the body
 * read within its bound, the request recorded in the log, the DNS-rebinding guard of a loopback server, and the
 * endpoint path. A request that fails one of them is answered here.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "./clock.js";
import type { RequestLog } from "./request-log.js";
import { localhostAllowedHostnames, validateHostHeader } from "./load-server-sdk.js";
import { flatHeaders, parseJson, readBody, writeRpcError } from "./node-http.js";

const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1"];

export interface Intake {
  /** Where the server listens, and its endpoint path. */
  host: string;
  path: string;
  log: RequestLog;
  clock: Clock;
}

export interface AdmittedRequest {
  /** Lower-case names, one string each. */
  headers: Record<string, string>;
  /** The raw body (empty for GET and DELETE). */
  text: string;
  /** The parsed JSON body, or the text when it is not JSON; undefined when empty. */
  body: unknown;
  url: URL;
}

/** The request, ready for the server; undefined when it was already answered (too large, bad host, wrong path). */
export async function admitRequest(
  req: IncomingMessage,
  res: ServerResponse,
  intake: Intake,
): Promise<AdmittedRequest | undefined> {
  const text = req.method === "POST" ? await readBody(req) : "";
  if (text === undefined) return void writeRpcError(res, 413, -32000, "Request body too large");
  const headers = flatHeaders(req.headers);
  const body = text === "" ? undefined : parseJson(text);
  const answered = intake.log.record({
    transport: "http",
    httpMethod: req.method,
    headers,
    body,
    receivedAt: intake.clock.now(),
  });
  // When the head goes out: a stream (a listen, an SSE answer) is recorded as answered once it opens.
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    answered(typeof args[0] === "number" ? args[0] : res.statusCode);
    return writeHead(...args);
  }) as typeof res.writeHead;

  if (LOOPBACK_HOSTS.includes(intake.host)) {
    // DNS-rebinding guard: a loopback server answers only requests addressed to a loopback name.
    const hostCheck = validateHostHeader(headers["host"], localhostAllowedHostnames());
    if (!hostCheck.ok) return void writeRpcError(res, 403, -32000, hostCheck.message);
  }
  const url = new URL(req.url ?? "/", `http://${headers["host"] ?? "localhost"}`);
  if (url.pathname !== intake.path) {
    return void res.writeHead(404, { "content-type": "text/plain" }).end("Not found");
  }
  return { headers, text, body, url };
}
