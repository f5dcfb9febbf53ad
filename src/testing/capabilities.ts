/** Reading the per-request capability declaration, and the error for a request that lacks it. */
import { MissingRequiredClientCapabilityError } from "./load-server-sdk.js";
import {
  CLIENT_CAPABILITIES_META_KEY,
  TASKS_EXTENSION_ID,
  TASKS_REQUIRED_CAPABILITIES,
} from "./constants.js";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Whether a request's `_meta` envelope declares the tasks extension. Any settings object counts
 * (an empty one today, one with keys from a later revision tomorrow); anything else does not.
 */
export function declaresTasks(envelope: Readonly<Record<string, unknown>> | undefined): boolean {
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY];
  if (!isObject(capabilities) || !isObject(capabilities["extensions"])) return false;
  return isObject(capabilities["extensions"][TASKS_EXTENSION_ID]);
}

/** `-32021` naming the tasks extension in `data.requiredCapabilities`. */
export function missingTasksCapability(): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: TASKS_REQUIRED_CAPABILITIES },
    `Missing required client capability: extensions["${TASKS_EXTENSION_ID}"]`,
  );
}
