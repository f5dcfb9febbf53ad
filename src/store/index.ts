/**
 * `mcp-tasks/store`: durable task refs for `TaskClient.connect(url, { store })`. The file store needs Node;
 * `memoryStore` and the `TaskStore` interface run anywhere.
 *
 * @module mcp-tasks/store
 */
export type { TaskStore } from "./types.js";
export { refExpired } from "./types.js";
export { LeaseLostError, TaskStoreError } from "../protocol/errors.js";
export { memoryStore, type MemoryStoreOptions } from "./memory.js";
export { fileStore, StoreLockedError, type FileStoreOptions, type OpenableStore } from "./file.js";
