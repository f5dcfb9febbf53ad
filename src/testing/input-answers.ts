/**
 * Checks answers to input requests before a script sees them: each answer must have the shape of
 * the result its request asks for (elicitation, sampling or roots). Answers for keys that are not
 * outstanding are not checked here; callers ignore them, as the spec asks.
 */
import { ProtocolError } from "./load-server-sdk.js";
import type { InputRequest, InputRequests, InputResponse } from "../schema/index.js";
import { createMessageResultSchema, elicitResultSchema, listRootsResultSchema } from "../schema/index.js";
import { ErrorCode } from "./constants.js";

function schemaFor(request: InputRequest) {
  switch (request.method) {
    case "elicitation/create":
      return elicitResultSchema;
    case "sampling/createMessage":
      return createMessageResultSchema;
    case "roots/list":
      return listRootsResultSchema;
    default:
      return undefined;
  }
}

/**
 * The answers among `given` for the keys of `requests`, each checked against its request.
 * `dropped` lists keys the SDK discarded because the answer was not an object.
 *
 * @throws {ProtocolError} `-32602` when an answer for one of these keys is malformed.
 */
export function takeAnswers(
  requests: InputRequests,
  given: Readonly<Record<string, unknown>> | undefined,
  dropped: readonly string[] = [],
): Record<string, InputResponse> {
  const taken: Record<string, InputResponse> = {};
  for (const [key, request] of Object.entries(requests)) {
    if (dropped.includes(key)) {
      throw new ProtocolError(
        ErrorCode.invalidParams,
        `Invalid input response for "${key}": expected an object`,
      );
    }
    if (given === undefined || !Object.hasOwn(given, key)) continue;
    const schema = schemaFor(request);
    const parsed = schema?.safeParse(given[key]);
    if (parsed !== undefined && !parsed.success) {
      throw new ProtocolError(
        ErrorCode.invalidParams,
        `Invalid input response for "${key}" (${request.method}): ${parsed.error.issues[0]?.message ?? "wrong shape"}`,
      );
    }
    taken[key] = given[key] as InputResponse;
  }
  return taken;
}
