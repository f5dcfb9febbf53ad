/**
 * The server's half of `x-mcp-header`: a `tools/call` over HTTP whose tool declares mirrored arguments must
 * carry each one as `Mcp-Param-{Name}`, equal to the argument in the body (after undoing the base64
 * sentinel); a missing or different header is a HeaderMismatch (-32020, HTTP 400), checked before the tool
 * runs. This is what lets client tests see the mirroring and the re-fetch-and-retry on the wire.
 */
import { decodeHeaderValue } from "../protocol/headers.js";
import { PARAM_HEADER_PREFIX, paramHeaderValues, scanParamHeaders } from "../protocol/param-headers.js";
import type { TaskEngine } from "./engine.js";

/** Why a request's `Mcp-Param-*` headers disagree with its body, or undefined when they agree. */
export function paramHeaderProblem(
  engine: TaskEngine,
  headers: Readonly<Record<string, string>>,
  body: unknown,
): string | undefined {
  if (!isRecord(body) || body.method !== "tools/call" || !isRecord(body.params)) return undefined;
  const { name, arguments: args } = body.params;
  const tool = engine.listTools().find((candidate) => candidate.name === name);
  if (tool === undefined) return undefined;
  const scan = scanParamHeaders(tool.inputSchema);
  if (!scan.ok || scan.headers.length === 0) return undefined;
  const expected = paramHeaderValues(scan.headers, isRecord(args) ? args : {});
  for (const { name: header } of scan.headers) {
    const key = `${PARAM_HEADER_PREFIX}${header}`;
    const want = expected[key];
    const got = headers[key.toLowerCase()];
    if (want === undefined && got === undefined) continue;
    if (got === undefined) return `${key} header is missing`;
    if (want === undefined) return `${key} header was sent for an argument that is absent or null`;
    if (decodeHeaderValue(got) !== decodeHeaderValue(want))
      return `${key} header does not match the argument`;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
