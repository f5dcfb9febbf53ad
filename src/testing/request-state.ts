/**
 * The `requestState` of the server's multi round-trip (MRTR) results. The server keeps no state
 * between rounds, so the state carries the script position and the answers so far; an HMAC with a
 * per-server random key makes a tampered or foreign state fail verification.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { InputResponse } from "../schema/index.js";

/** Where a tool call stands between MRTR rounds. */
export interface RoundState {
  /** The tool the state belongs to. */
  tool: string;
  /** `"sync"`: the whole script runs without a task; `"pre"`: the rounds before a task is created. */
  phase: "sync" | "pre";
  /** Index of the `step.input` waiting for answers. */
  index: number;
  /** Answers received in earlier rounds. */
  responses: Record<string, InputResponse>;
}

export interface RequestStateCodec {
  encode(state: RoundState): string;
  /** The state, or `undefined` when the string was not minted by this codec. */
  decode(text: string): RoundState | undefined;
}

export function createRequestStateCodec(key: Buffer = randomBytes(32)): RequestStateCodec {
  const mac = (body: string) => createHmac("sha256", key).update(body).digest();
  return {
    encode(state) {
      const body = Buffer.from(JSON.stringify(state)).toString("base64url");
      return `${body}.${mac(body).toString("base64url")}`;
    },
    decode(text) {
      const [body, signature, extra] = text.split(".");
      if (body === undefined || signature === undefined || extra !== undefined) return undefined;
      const expected = mac(body);
      const given = Buffer.from(signature, "base64url");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        return JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as RoundState;
      } catch {
        return undefined;
      }
    },
  };
}
