/** Wire names the reference server uses (protocol revision 2026-07-28, Tasks extension). */

export const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks";
export const PROTOCOL_VERSION = "2026-07-28";

export const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";
export const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";
export const SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId";

/** JSON-RPC error codes the server answers with. */
export const ErrorCode = {
  invalidParams: -32602,
  internalError: -32603,
  headerMismatch: -32020,
  missingRequiredClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
} as const;

/** The `requiredCapabilities` a request must declare to receive tasks. */
export const TASKS_REQUIRED_CAPABILITIES = { extensions: { [TASKS_EXTENSION_ID]: {} } };
