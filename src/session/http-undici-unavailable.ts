/**
 * What `#http` resolves to outside Node (Bun, Deno, browsers, Workers): no undici path, so every URL connection
 * uses `fetch`, which is these runtimes' own HTTP client. See ./http-undici.ts for the Node side.
 */
import type { NodeHttp } from "./http-undici.js";

export function nodeHttp(_options: { connections: number | undefined }): NodeHttp | undefined {
  return undefined;
}
