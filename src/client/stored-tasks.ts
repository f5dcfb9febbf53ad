/**
 * Owner of how a client takes up the tasks its store holds: `resume()` (every stored task of this server, once)
 * and the adoption loop (`adopt`: tasks whose lease lapsed, again and again). When a ref is claimed, followed or
 * handed back is decided in ../run/ref-life.ts; this part only lends it the client (its store, its live runs,
 * how it makes a handle for a ref, whether it is closing).
 */
import type { CallToolResult } from "../schema/index.js";
import { McpTasksError } from "../protocol/errors.js";
import type { Logger } from "../protocol/logging.js";
import type { TaskHandle } from "../task/handle.js";
import type { TaskRef } from "../task/ref.js";
import type { TaskStore } from "../store/types.js";
import { followClaimed, startAdoption, type FollowerDeps } from "../run/ref-life.js";
import { TaskRun } from "../run/task-run.js";
import type { ClientRefs } from "./refs.js";
import type { ClientRuns } from "./runs.js";

/** What taking up stored tasks needs of the client. */
export interface StoredTasksDeps {
  store: TaskStore | undefined;
  log: Logger;
  refs: ClientRefs;
  runs: ClientRuns;
  /** Makes a live handle for a claimed ref (`client.task`); throws when the client cannot follow it. */
  follow(ref: TaskRef): TaskHandle<CallToolResult>;
  /** Whether the client is closing: a claim that lands then is handed back. */
  closed(): boolean;
}

/**
 * A handle for every unfinished task of this server in the store: a live one for a task this client already
 * follows, a new one (`follow`) for each other claim; a claim the client cannot follow is handed back at once.
 */
export async function resumeStored(
  deps: StoredTasksDeps,
  caller: string,
  follow: (ref: TaskRef) => TaskHandle<CallToolResult> = deps.follow,
): Promise<TaskHandle<CallToolResult>[]> {
  const { store, refs, runs } = deps;
  if (store === undefined) throw new McpTasksError(`${caller}: the client has no \`store\``);
  const server = refs.storedServer();
  if (server === undefined) return [];
  const stored = await store.list(server);
  const live = runs.byTaskId();
  // With leases, follow only what this worker could claim (the latest ref, answered keys included).
  const claims = stored.map((ref) => live.get(ref.taskId) ?? (store.claim ? store.claim(ref) : ref));
  const handles: TaskHandle<CallToolResult>[] = [];
  const follower = followerOf(deps, store, (ref) => handles.push(follow(ref)));
  for (const claim of await Promise.all(claims)) {
    if (claim instanceof TaskRun) handles.push(claim.handle);
    else if (claim !== undefined) followClaimed(follower, claim);
  }
  return handles;
}

/**
 * Starts the adoption loop (`adopt`), which takes tasks whose lease lapsed every `everyMs`; returns what stops it
 * for good (`close()`: no new claim, and a claim in flight is handed back as it lands).
 */
export function adoptStored(deps: StoredTasksDeps, store: TaskStore, everyMs: number): () => void {
  return startAdoption(
    {
      ...followerOf(deps, store, (ref) => void deps.follow(ref)),
      server: () => deps.refs.storedServer(),
      followed: () => new Set(deps.runs.byTaskId().keys()),
      resume: () => resumeStored(deps, "adoption"),
    },
    everyMs,
  );
}

function followerOf(deps: StoredTasksDeps, store: TaskStore, follow: (ref: TaskRef) => void): FollowerDeps {
  return { store, log: deps.log, follow, closed: deps.closed };
}
