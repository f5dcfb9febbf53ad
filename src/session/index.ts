/**
 * mcp-tasks/transport: what someone who brings their own transport needs, kept off the main entry that agent and
 * UI code import. The shape a transport must have (`McpTransport`, the MCP SDK's `Transport` in short), the
 * `fetch` wrappers that let the v1 SDK's Streamable HTTP transport speak 2026-07-28 (routing headers, JSON-RPC
 * errors read out of HTTP 4xx bodies), and the wire's names.
 *
 * ```ts
 * import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
 * import { TaskClient } from "mcp-tasks";
 * import { withHttpErrorMapping, withRoutingHeaders } from "mcp-tasks/transport";
 *
 * const transport = new StreamableHTTPClientTransport(new URL("https://tools.example.com/mcp"), {
 *   fetch: withRoutingHeaders(withHttpErrorMapping()),
 * });
 * const client = await TaskClient.connect(transport);
 * ```
 *
 * @module mcp-tasks/transport
 */
export type { McpTransport, OutgoingMessage, SendOptions } from "./types.js";
export type { AbortLine } from "./abort-line.js";
export { withRoutingHeaders, type FetchLike } from "../protocol/headers.js";
export { withHttpErrorMapping } from "./http-fetch.js";
export { TASKS_EXTENSION_ID, PROTOCOL_VERSION, TASK_CAPABLE_METHODS } from "../protocol/constants.js";
