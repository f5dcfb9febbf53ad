/**
 * Fingerprints of input requests, so the ledger can tell "the same request again" (a repeat across polls) from
 * "another request under a used key" (a protocol violation) without keeping the request itself.
 *
 * The fingerprint is a 64-bit hash of the request's canonical JSON, plus its length. A hash rather than the
 * canonical text, because a ledger entry outlives its request (it guards the key until the task ends) and a
 * sampling request can carry a whole conversation. Non-cryptographic on purpose: it must be synchronous and run
 * without `node:crypto` (the core runs in browsers), and it needs no collision resistance against the server,
 * which already controls its requests: a forged collision could only make a reused key look like a repeat, which
 * is the server's violation to begin with.
 */

import { MAX_JSON_DEPTH as MAX_DEPTH } from "../protocol/depth.js";

/**
 * JSON with object keys sorted (by UTF-16 code units) at every level, so two requests that differ only in key
 * order give the same text. `undefined` members are left out, as `JSON.stringify` does.
 */
export function canonicalJson(value: unknown): string {
  return write(value, 0);
}

function write(value: unknown, depth: number): string {
  if (depth > MAX_DEPTH) throw new RangeError(`canonicalJson: nesting deeper than ${MAX_DEPTH} levels`);
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((item) => write(item, depth + 1)).join(",")}]`;
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    members.push(`${JSON.stringify(key)}:${write(record[key], depth + 1)}`);
  }
  return `{${members.join(",")}}`;
}

/** The fingerprint of a JSON value: equal for equal values whatever their key order. */
export function fingerprint(value: unknown): string {
  return hashText(canonicalJson(value));
}

/**
 * Two 32-bit multiplicative hashes with different multipliers over the UTF-16 code units, each finished with an
 * avalanche step, then the length: 64 bits of hash for an accidental collision rate far below anything a task
 * will ever see.
 */
function hashText(text: string): string {
  let first = 0x811c9dc5;
  let second = 0x9e3779b9 ^ text.length;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    first = Math.imul(first ^ unit, 0x01000193);
    second = Math.imul(second ^ unit, 0x5bd1e995);
    second ^= second >>> 15;
  }
  return `${hex(avalanche(first))}${hex(avalanche(second ^ first))}:${text.length.toString(36)}`;
}

/** Spreads every input bit over the whole word (the finaliser of MurmurHash3). */
function avalanche(word: number): number {
  let mixed = word ^ (word >>> 16);
  mixed = Math.imul(mixed, 0x85ebca6b);
  mixed ^= mixed >>> 13;
  mixed = Math.imul(mixed, 0xc2b2ae35);
  return (mixed ^ (mixed >>> 16)) >>> 0;
}

function hex(word: number): string {
  return word.toString(16).padStart(8, "0");
}
