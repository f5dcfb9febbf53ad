/**
 * The JSON text of a request on the Node HTTP path (./http-undici.ts), made cheaper than `JSON.stringify`: every
 * request of a 2026-07-28 session carries the same frozen `_meta` envelope (src/protocol/envelope.ts: the
 * revision, the client, its capabilities), which is most of a poll's bytes, and serializing it again on every
 * poll was the largest single cost of sending one. Browsers, Bun, Deno and Workers never load this file.
 *
 * Owner of: when a `_meta`'s text is reused, and that the text is always exactly what `JSON.stringify` writes
 * for the message. A `_meta` is reused only while requests keep sending the very same object and that object is
 * frozen all the way down (nothing can change it between two requests); anything else is serialized as usual.
 */
import type { OutgoingMessage } from "./types.js";

const REQUEST_KEYS = ["jsonrpc", "id", "method", "params"] as const;

export class RequestText {
  /** The `_meta` whose text is `metaText` (undefined: none yet, or the last one seen could not be reused). */
  private meta: object | undefined;
  private metaText = "";

  /** `JSON.stringify(message)`, with the text of a request's `_meta` made once while requests share it. */
  of(message: OutgoingMessage): string {
    const params = (message as { params?: unknown }).params;
    const meta = framedMeta(message, params);
    if (meta === undefined || !this.knows(meta)) return JSON.stringify(message);
    const { id, method } = message as { id: string | number; method: string };
    // `params` without its last key, `_meta`: the same text with `_meta` spliced back in last.
    const rest: Record<string, unknown> = {};
    const keys = Object.keys(params as object);
    for (let i = 0; i < keys.length - 1; i++) {
      const key = keys[i] as string;
      rest[key] = (params as Record<string, unknown>)[key];
    }
    const own = JSON.stringify(rest);
    const framed =
      own === "{}" ? `{"_meta":${this.metaText}}` : `${own.slice(0, -1)},"_meta":${this.metaText}}`;
    return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":${JSON.stringify(method)},"params":${framed}}`;
  }

  /** Whether `meta`'s text is known (made now when `meta` is new and frozen all the way down). */
  private knows(meta: object): boolean {
    if (meta === this.meta) return true;
    if (!deeplyFrozen(meta, 0)) return false;
    this.meta = meta;
    this.metaText = JSON.stringify(meta);
    return true;
  }
}

/**
 * The `_meta` of a request built as the session builds one (`jsonrpc`, `id`, `method`, `params` in that order,
 * `_meta` the last key of `params`), when its text can be spliced; undefined for anything else.
 */
function framedMeta(message: OutgoingMessage, params: unknown): object | undefined {
  if (typeof params !== "object" || params === null || Array.isArray(params)) return undefined;
  const keys = Object.keys(message);
  if (keys.length !== 4 || !REQUEST_KEYS.every((key, i) => keys[i] === key)) return undefined;
  const frame = message as { jsonrpc: unknown; id: unknown; method: unknown };
  if (frame.jsonrpc !== "2.0" || typeof frame.method !== "string") return undefined;
  if (!(typeof frame.id === "string" || (typeof frame.id === "number" && Number.isFinite(frame.id))))
    return undefined;
  const record = params as Record<string, unknown>;
  // Keys a plain copy would not carry over as they are, or that change what `JSON.stringify` does.
  if (Object.hasOwn(record, "__proto__") || Object.hasOwn(record, "toJSON")) return undefined;
  if (Object.getPrototypeOf(record) !== Object.prototype) return undefined;
  const names = Object.keys(record);
  if (names[names.length - 1] !== "_meta") return undefined;
  const meta = record._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta) ? meta : undefined;
}

/** Whether `value` and everything in it is frozen plain data (an envelope: a few levels deep at most). */
function deeplyFrozen(value: object, depth: number): boolean {
  if (depth > 8 || !Object.isFrozen(value) || typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return false;
  }
  for (const inner of Object.values(value)) {
    if (typeof inner === "object" && inner !== null && !deeplyFrozen(inner, depth + 1)) return false;
  }
  return true;
}
