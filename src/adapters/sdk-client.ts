/**
 * Task handles from an MCP SDK `Client` an app already holds (`@modelcontextprotocol/client`, v2; or
 * `@modelcontextprotocol/sdk`, v1), over the same connection and without glue code. The SDK's own `callTool`
 * cannot carry a task (v2 rejects `resultType: "task"`, v1 reads it as an empty result); this sends tool calls
 * and `tasks/*` on the Client's transport itself.
 */
import type { DiscoverResult, Implementation, ServerCapabilities } from "../schema/index.js";
import { LEGACY_PROTOCOL_VERSION, TASKS_EXTENSION_ID } from "../protocol/constants.js";
import { McpTasksError } from "../protocol/errors.js";
import type { McpTransport, ServerInfo } from "../session/types.js";
import { TaskClient } from "../client/task-client.js";
import type { TaskClientOptions } from "../client/options.js";
import { SharedTransport } from "./shared-transport.js";

/** The parts of an SDK `Client` this adapter reads. Both SDK lines' `Client` classes have them. */
export interface SdkClientLike {
  readonly transport: unknown;
  /** v2 only. */
  getProtocolEra?(): "modern" | "legacy" | undefined;
  /** v2 only. */
  getNegotiatedProtocolVersion?(): string | undefined;
  /** v2 only. */
  getDiscoverResult?(): unknown;
  getServerCapabilities?(): unknown;
  getServerVersion?(): unknown;
}

/**
 * A `TaskClient` that shares an already connected SDK `Client`'s connection. Closing it leaves the SDK
 * client connected.
 *
 * ```ts
 * const client = new Client({ name: "my-agent", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
 * await client.connect(transport);
 * const tasks = tasksFor(client);
 * const result = await tasks.callTool("slow_compute", { seconds: 2 });
 * ```
 */
export function tasksFor(client: SdkClientLike, options: TaskClientOptions = {}): TaskClient {
  const transport = client.transport as McpTransport | undefined;
  if (transport === undefined || typeof transport?.send !== "function") {
    throw new McpTasksError(
      "tasksFor: the SDK Client is not connected; call client.connect(transport) first",
    );
  }
  const shared = new SharedTransport(transport);
  void shared.start();
  return TaskClient.overNegotiated(shared, serverInfoOf(client), {
    ...options,
    // The app's own identity, when its Client was given one (a private field on both SDK lines).
    clientInfo: options.clientInfo ?? ((client as { _clientInfo?: Implementation })._clientInfo || undefined),
  });
}

/** What the Client's own negotiation found, in our terms. A v1 Client always speaks the 2025-era protocol. */
function serverInfoOf(client: SdkClientLike): ServerInfo {
  const era = client.getProtocolEra?.() === "modern" ? "modern" : "legacy";
  const discover = client.getDiscoverResult?.() as DiscoverResult | undefined;
  const capabilities = (discover?.capabilities ?? client.getServerCapabilities?.()) as
    ServerCapabilities | undefined;
  const info: ServerInfo = {
    era,
    protocolVersion: client.getNegotiatedProtocolVersion?.() ?? LEGACY_PROTOCOL_VERSION,
    supportsTasks:
      era === "modern"
        ? isObject(capabilities?.extensions?.[TASKS_EXTENSION_ID])
        : isObject((capabilities as Record<string, unknown> | undefined)?.["tasks"]),
  };
  if (discover !== undefined) info.discover = discover;
  else if (capabilities !== undefined) info.capabilities = capabilities as Record<string, unknown>;
  const version = client.getServerVersion?.() as Implementation | undefined;
  if (version !== undefined) info.serverInfo = version;
  return info;
}

function isObject(value: unknown): boolean {
  return typeof value === "object" && value !== null;
}
