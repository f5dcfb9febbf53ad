/**
 * One HTTP response answers one POST. A server that cannot tell which request an error is for writes `id: null`
 * (JSON-RPC says so), and a broken one may answer with no response at all; either way nothing else will answer
 * that request, and with no timeout on `tools/call` its handle would wait for ever. So the JSON body of a request's
 * response is read as that request's answer: an error without an id becomes the request's error, and a body
 * without any answer fails the request. Both HTTP paths use this (our transport, and the SDK's on the OAuth path).
 */
import { ProtocolError } from "../protocol/errors.js";
import { limitResponse, readBoundedText } from "./bounded-body.js";

/** A JSON-RPC error response whose id the server left out or set to null. */
export function isAnonymousError(frame: unknown): frame is Record<string, unknown> {
  if (typeof frame !== "object" || frame === null) return false;
  const record = frame as Record<string, unknown>;
  return "error" in record && (record.id === null || record.id === undefined) && !("method" in record);
}

/**
 * The frames of the JSON answer to request `id`: as they are when one answers it; otherwise a copy in which the
 * first error without an id carries `id`. Throws `ProtocolError` when nothing answers the request.
 */
export function answerFrames(id: string | number, method: string, frames: readonly unknown[]): unknown[] {
  let anonymous = -1;
  for (let i = 0; i < frames.length; i++) {
    const frame = frames[i];
    if (typeof frame !== "object" || frame === null) continue;
    const record = frame as Record<string, unknown>;
    if (record.id === id && ("result" in record || "error" in record)) return frames as unknown[];
    if (anonymous === -1 && isAnonymousError(record)) anonymous = i;
  }
  if (anonymous === -1) {
    throw new ProtocolError("the server's HTTP response carries no answer to the request", method, [
      ...frames,
    ]);
  }
  const copy = [...frames];
  copy[anonymous] = { ...(frames[anonymous] as Record<string, unknown>), id };
  return copy;
}

/** The id and method of the JSON-RPC request a POST body carries, read without parsing the whole body. */
export function sentRequest(body: unknown): { id: string | number; method: string } | undefined {
  if (typeof body !== "string") return undefined;
  // Both transports serialize the message as built: `{"jsonrpc":"2.0","id":…,"method":"…"`.
  const match = REQUEST_START.exec(body);
  if (match === null) return undefined;
  const id = JSON.parse(match[1] as string) as string | number;
  return { id, method: JSON.parse(match[2] as string) as string };
}

const REQUEST_START = /^\{"jsonrpc":"2\.0","id":("(?:[^"\\]|\\.)*"|-?\d+),"method":("(?:[^"\\]|\\.)*")/;

/**
 * An endpoint response as the SDK's transport (the OAuth path) gets it, held to what ours does: the JSON answer to
 * a request is read within `maxBytes` and checked as above (`answerFrames`); any other body (an SSE stream, an
 * error page) fails once it passes the limit as it is read, and `noteFailure` (the connection's
 * `StreamFailures`) hears why. Used by the `mcp-tasks/oauth` entry, which bundles its own copy: the main entry
 * keeps only the record of failures, which the session reads.
 */
export async function boundedSdkAnswer(
  response: Response,
  init: RequestInit | undefined,
  maxBytes: number,
  noteFailure: (id: string | number, error: Error) => void,
): Promise<Response> {
  const request = init?.method === "POST" ? sentRequest(init.body) : undefined;
  const json = mediaType(response) === "application/json";
  if (request === undefined || !json || !response.ok || response.status === 202) {
    const what = `${request?.method ?? init?.method ?? "GET"}: the HTTP response`;
    // The SDK tells the request only that its stream ended; the session asks the transport why.
    const onLimit = request === undefined ? undefined : (error: Error) => noteFailure(request.id, error);
    return limitResponse(response, maxBytes, what, onLimit);
  }
  const text = await readBoundedText(response, maxBytes, `${request.method}: the HTTP response body`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return withBody(response, text); // the SDK reports the garbled body as it always did
  }
  const frames = Array.isArray(data) ? (data as unknown[]) : [data];
  const answer = answerFrames(request.id, request.method, frames);
  if (answer === frames) return withBody(response, text);
  return withBody(response, JSON.stringify(Array.isArray(data) ? answer : answer[0]));
}

function mediaType(response: Response): string | undefined {
  return response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
}

function withBody(response: Response, text: string): Response {
  const headers = new Headers(response.headers);
  // The text as read: decoded, and of its own length.
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(text, { status: response.status, statusText: response.statusText, headers });
}

const MAX_STREAM_FAILURES = 32;

/**
 * Why a request's response stream on the SDK's transport failed, when the failure was ours (the size limit): the
 * SDK only says the stream ended. One record per connection, kept by the transport that fills it; a failure is
 * kept until the session asks (`take`), at most a few (a request that was answered before its stream failed
 * never asks), so one connection's failures never push out another's.
 */
export class StreamFailures {
  private readonly failures = new Map<string | number, Error>();

  /** Notes why request `id`'s stream failed, for the session to ask. */
  readonly note = (id: string | number, error: Error): void => {
    if (this.failures.size >= MAX_STREAM_FAILURES) {
      const oldest = this.failures.keys().next();
      if (oldest.done !== true) this.failures.delete(oldest.value);
    }
    this.failures.set(id, error);
  };

  /** Takes the failure noted for request `id`'s stream, if any. */
  take(id: string | number): Error | undefined {
    const error = this.failures.get(id);
    if (error !== undefined) this.failures.delete(id);
    return error;
  }
}
