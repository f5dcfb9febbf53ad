/**
 * Every message a client sent to the server, in arrival order, with its HTTP headers, so client
 * tests can assert what went over the wire (`Mcp-Method`, `Mcp-Name`, `MCP-Protocol-Version`, the
 * `_meta` envelope) without a proxy.
 */

/** One message as the server received it. */
export interface RecordedRequest {
  readonly transport: "http" | "stdio";
  /** HTTP method (`POST`, `GET`, ...); `undefined` on stdio. */
  readonly httpMethod: string | undefined;
  /** Request headers with lower-case names; empty on stdio. */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body (or the raw text when it was not JSON). */
  readonly body: unknown;
  /** The JSON-RPC `method`, when the body has one. */
  readonly method: string | undefined;
  /** The JSON-RPC `id`, when the body is a request. */
  readonly id: string | number | undefined;
  /** Arrival time on the server's clock (ms since the epoch). */
  readonly receivedAt: number;
  /** HTTP: the status the server answered with, once it answered (a 401 refusal, a 200 …); stdio: undefined. */
  readonly status?: number;
}

/** The log a running server exposes as `server.requests`. */
export class RequestLog {
  private readonly entries: RecordedRequest[] = [];

  /** Every recorded message, oldest first (a copy). */
  all(): RecordedRequest[] {
    return [...this.entries];
  }

  /** Messages whose JSON-RPC method is `method`, oldest first. */
  forMethod(method: string): RecordedRequest[] {
    return this.entries.filter((entry) => entry.method === method);
  }

  /** The newest message, or the newest with this JSON-RPC method. */
  last(method?: string): RecordedRequest | undefined {
    const matching = method === undefined ? this.entries : this.forMethod(method);
    return matching[matching.length - 1];
  }

  /** How many entries the log holds. */
  get size(): number {
    return this.entries.length;
  }

  /** Forgets every entry so far, e.g. between the steps of a test. */
  clear(): void {
    this.entries.length = 0;
  }

  /**
   * @internal Called by the transports. Returns a function that records the HTTP status once the server answers.
   */
  record(entry: Omit<RecordedRequest, "method" | "id" | "status">): (status: number) => void {
    const body = entry.body as { method?: unknown; id?: unknown } | null;
    const isObject = typeof body === "object" && body !== null;
    const method = isObject && typeof body.method === "string" ? body.method : undefined;
    const id = isObject && (typeof body.id === "string" || typeof body.id === "number") ? body.id : undefined;
    const recorded: { -readonly [K in keyof RecordedRequest]: RecordedRequest[K] } = { ...entry, method, id };
    this.entries.push(recorded);
    return (status) => {
      recorded.status = status;
    };
  }
}
