/**
 * Sends `tools/call` with its `Mcp-Param-*` headers over Streamable HTTP. The headers come from the cached
 * `tools/list` only: with no schema at hand the call goes without them, as the spec advises, and when the
 * server answers HeaderMismatch (-32020) the catalog is fetched again and the call sent once more with the
 * headers the fresh schema asks for. That one resend is safe: a header check fails before the tool runs.
 */
import { ErrorCode } from "../protocol/constants.js";
import { RpcError } from "../protocol/errors.js";
import { paramHeaderValues } from "../protocol/param-headers.js";
import type { RequestHeaders } from "../session/request-headers.js";
import type { RequestOptions, RpcChannel } from "../session/types.js";
import type { ToolCatalog } from "./catalog.js";

/**
 * A call has no per-request timeout: it is a lifecycle event, bounded by its handle's deadline and signal and by
 * the client's `close()`, and an answer that comes late (a task id included) must still arrive.
 */
const CALL: Readonly<RequestOptions> = Object.freeze({ timeoutMs: Infinity });

export class ParamMirror {
  constructor(
    private readonly channel: RpcChannel,
    private readonly catalog: ToolCatalog,
    private readonly requestHeaders: RequestHeaders,
  ) {}

  /** Sends one `tools/call` whose params are `params` (with `name` and `arguments`); `owner` as in `RequestOptions`. */
  async call(params: Record<string, unknown>, owner?: object): Promise<Record<string, unknown>> {
    try {
      return await this.send(params, owner);
    } catch (error) {
      if (!isHeaderMismatch(error)) throw error;
      await this.catalog.refresh();
      return this.send(params, owner);
    }
  }

  private send(params: Record<string, unknown>, owner: object | undefined): Promise<Record<string, unknown>> {
    const name = typeof params.name === "string" ? params.name : "";
    const args = isRecord(params.arguments) ? params.arguments : {};
    const headers = paramHeaderValues(this.catalog.paramHeaders(name), args);
    if (Object.keys(headers).length === 0)
      return this.channel.request("tools/call", params, callOptions(owner));
    let filed: string | undefined;
    const answer = this.channel.request("tools/call", params, {
      ...callOptions(owner),
      onId: (id) => {
        filed = id;
        this.requestHeaders.file(id, headers);
      },
    });
    // Sent or failed: either way the POST is behind us, so nothing stays filed.
    return answer.finally(() => {
      if (filed !== undefined) this.requestHeaders.drop(filed);
    });
  }
}

function isHeaderMismatch(error: unknown): boolean {
  return error instanceof RpcError && error.code === ErrorCode.headerMismatch;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * How a client sends its calls: through the mirror when it owns an HTTP transport on the 2026-07-28 era (the
 * only place `Mcp-Param-*` exists), straight to the channel otherwise.
 */
export function callSender(
  channel: RpcChannel,
  catalog: ToolCatalog,
  requestHeaders: RequestHeaders | undefined,
): (method: string, params: Record<string, unknown>, owner?: object) => Promise<Record<string, unknown>> {
  if (requestHeaders === undefined)
    return (method, params, owner) => channel.request(method, params, callOptions(owner));
  const mirror = new ParamMirror(channel, catalog, requestHeaders);
  return (method, params, owner) =>
    method === "tools/call"
      ? mirror.call(params, owner)
      : channel.request(method, params, callOptions(owner));
}

/** The call's request options, naming the owner when there is one (no object per call while telemetry is off). */
function callOptions(owner: object | undefined): Readonly<RequestOptions> {
  return owner === undefined ? CALL : { ...CALL, owner };
}
