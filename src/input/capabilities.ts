/**
 * The input capabilities a client declares on every request, derived from the handlers it was given: a server
 * must not ask for a kind the client did not declare (core MRTR rules), so a kind without a handler is never
 * declared. The tasks extension itself is added by the session, not here.
 */
import type { ClientCapabilities } from "../schema/index.js";
import type { InputHandlers } from "./types.js";

/** `elicitation` → `{ form: {}, url: {} }`, `sampling` → `{}`, `roots` → `{}`, each only when its handler exists. */
export function capabilitiesFor(handlers: InputHandlers | undefined): ClientCapabilities {
  const capabilities: ClientCapabilities = {};
  if (typeof handlers?.elicitation === "function") capabilities.elicitation = { form: {}, url: {} };
  if (typeof handlers?.sampling === "function") capabilities.sampling = {};
  if (typeof handlers?.roots === "function") capabilities.roots = {};
  return capabilities;
}
