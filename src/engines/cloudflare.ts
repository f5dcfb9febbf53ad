/**
 * `mcp-tasks/cloudflare`: tool calls inside a Cloudflare Durable Object that survive hibernation and eviction. The
 * task's ref lives in the object's storage (`durableObjectStore`), and the object's alarm follows the task
 * (`durableTasks`): the tool runs once, however often the object is evicted. It imports the core by the package's
 * name and no Cloudflare package at run time.
 *
 * @module mcp-tasks/cloudflare
 */
export {
  durableTasks,
  type DurableTasks,
  type DurableTasksOptions,
  type DurableCall,
  type DurableTaskEvent,
  type DurableTaskInfo,
  type InputKind,
} from "./cloudflare-follower.js";
export { durableObjectStore, type DurableObjectStoreOptions } from "./cloudflare-store.js";
export type { DurableObjectStorageLike, DurableObjectStateLike } from "./cloudflare-types.js";
