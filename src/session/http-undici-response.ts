/**
 * The answer of one request on the undici path (./http-undici.ts), shaped as the part of a `fetch` `Response` the
 * HTTP chain reads: `status`, `ok`, `headers.get`, `body` (a web stream, made only when asked for), `text()`,
 * `arrayBuffer()`, `json()`. A real `Response` per poll is what this path exists to avoid (its construction and
 * its web stream cost more than the request itself on loopback); code that needs a real one (the SDK's transport on
 * the OAuth path) gets it from `toWebResponse`.
 *
 * Owner of: what a decoded body looks like to the bounds. A body the server compressed (it was not asked to: this
 * path sends no `Accept-Encoding` of its own) is decompressed here, and its `Content-Length` (the compressed size)
 * is not shown, so every reader above counts the decompressed bytes as they come (./bounded-body.ts, ./sse.ts).
 */
import { Readable, type Transform } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Dispatcher } from "undici";

type RawHeaders = Dispatcher.ResponseData["headers"];

/** Statuses whose answer has no body, as `fetch` shows them (`body` is null). */
const NULL_BODY: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/** The response headers as `fetch` shows them: names case-insensitive, repeated fields joined with ", ". */
export class ResponseHeaders {
  constructor(private readonly raw: RawHeaders) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return typeof value === "string" ? value : value.join(", ");
  }

  has(name: string): boolean {
    return this.raw[name.toLowerCase()] !== undefined;
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, value] of this) callback(value, name);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.raw).sort()) {
      const value = this.get(name);
      if (value !== null) yield [name, value];
    }
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

export class UndiciResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: ResponseHeaders;
  readonly redirected = false;
  readonly type = "basic";
  private stream: Readable | null;
  private web: ReadableStream<Uint8Array> | undefined;
  private used = false;
  /** The body as undici hands it over, before any decoding. */
  private readonly raw: Dispatcher.ResponseData["body"];

  constructor(
    readonly url: string,
    data: Dispatcher.ResponseData,
    method: string,
  ) {
    this.status = data.statusCode;
    this.statusText = data.statusText ?? "";
    this.ok = this.status >= 200 && this.status <= 299;
    this.raw = data.body;
    let raw = data.headers;
    // A body nobody reads fails when its request is aborted; its reader, if any, hears of it on its own.
    data.body.on("error", ignore);
    if (NULL_BODY.has(this.status) || method === "HEAD") {
      data.body.resume();
      this.stream = null;
    } else {
      const decoded = decode(data.body, raw["content-encoding"]);
      if (decoded !== data.body) {
        raw = { ...raw };
        delete raw["content-length"];
      }
      this.stream = decoded;
    }
    this.headers = new ResponseHeaders(raw);
  }

  get bodyUsed(): boolean {
    return this.used;
  }

  /** The body as a web stream, made on first use (the SSE reader and the bounded reader ask for it). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.stream === null) return null;
    this.web ??= webStream(this.stream);
    return this.web;
  }

  text(): Promise<string> {
    // The common case, a JSON answer read whole: undici's own reader, without a web stream or an async iterator,
    // and its promise handed back as it is (no `async` turns on every poll).
    if (!this.used && this.web === undefined && this.stream === this.raw) {
      this.used = true;
      return this.raw.text();
    }
    return this.bytes().then((bytes) => new TextDecoder().decode(bytes));
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async bytes(): Promise<Uint8Array> {
    if (this.used) throw new TypeError("Body is unusable: Body has already been read");
    this.used = true;
    if (this.web !== undefined) return new Uint8Array(await new Response(this.web).arrayBuffer());
    const stream = this.stream;
    if (stream === null) return new Uint8Array(0);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  }

  clone(): never {
    throw new TypeError("mcp-tasks: a response of the undici path cannot be cloned; use toWebResponse first");
  }
}

/**
 * A web stream over a Node one, pulled a chunk at a time (nothing read ahead of the reader, so a bound stops the
 * server's bytes where it is passed). Cancelling it destroys the Node stream, which closes the connection.
 * (Node's `Readable.toWeb` enqueues after a cancel, an uncaught error.)
 */
function webStream(stream: Readable): ReadableStream<Uint8Array> {
  const chunks = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { value, done } = await chunks.next();
        if (done === true) controller.close();
        else controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      },
      async cancel() {
        stream.destroy();
        await chunks.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The body decompressed by the codings `Content-Encoding` names (last applied, first undone), as `fetch` does; a
 * coding this runtime cannot undo leaves the body as it came, as `fetch` leaves it.
 */
function decode(body: Readable, encoding: string | string[] | undefined): Readable {
  if (encoding === undefined) return body;
  const codings = (typeof encoding === "string" ? encoding : encoding.join(","))
    .toLowerCase()
    .split(",")
    .map((coding) => coding.trim())
    .filter((coding) => coding !== "" && coding !== "identity");
  if (codings.length === 0 || !codings.every((coding) => Object.hasOwn(DECODERS, coding))) return body;
  let stream: Readable = body;
  for (const coding of codings.reverse()) {
    const decoder = (DECODERS[coding] as () => Transform)();
    const source = stream;
    source.on("error", (error) => decoder.destroy(error));
    decoder.on("close", () => source.destroy());
    stream = source.pipe(decoder);
  }
  return stream;
}

function ignore(): void {}

const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  "x-gzip": createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** A real `Response` with the same status, headers and body, for code that needs one. */
export function toWebResponse(response: Response): Response {
  if (!((response as unknown) instanceof UndiciResponse)) return response;
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers],
  });
}
