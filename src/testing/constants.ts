/** Wire names the reference server uses: the library's own, plus what only a server needs. */
import { MetaKey, TASKS_EXTENSION_ID } from "../protocol/constants.js";

export { ErrorCode, PROTOCOL_VERSION, TASKS_EXTENSION_ID } from "../protocol/constants.js";

export const PROTOCOL_VERSION_META_KEY = MetaKey.protocolVersion;
export const CLIENT_CAPABILITIES_META_KEY = MetaKey.clientCapabilities;
export const SUBSCRIPTION_ID_META_KEY = MetaKey.subscriptionId;

/** The `requiredCapabilities` a request must declare to receive tasks. */
export const TASKS_REQUIRED_CAPABILITIES = { extensions: { [TASKS_EXTENSION_ID]: {} } };
