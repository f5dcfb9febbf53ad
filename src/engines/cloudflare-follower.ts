/**
 * `durableTasks(ctx, options)`: tool calls of a Durable Object followed by its alarm (DESIGN decision 21, "engines
 * hold the ref; the tool runs once"). This file owns when a stored task is polled and what the object's author
 * hears of it. Every poll happens inside `alarm()`, one `tasks/get` per due task, and before a round ends the
 * next poll time is set with `ctx.storage.setAlarm`: no JavaScript timer is relied on between rounds, so
 * hibernation or eviction loses nothing. A cancel or an input answer the user gives is stored first and sent by
 * the next alarm, so it survives an eviction too. An ending is reported to `onEvent`, and only then is the
 * task's record deleted: the author hears of every ending at least once.
 */
import { TransportError } from "mcp-tasks";
import type {
  CallToolOptions,
  InputHandlers,
  InputContext,
  TaskClient,
  TaskHandle,
  TaskOutcome,
  TaskRef,
} from "mcp-tasks";
import type { TaskStore } from "mcp-tasks/store";
import { recordStore, type TaskRecord } from "./cloudflare-store.js";
import type { DurableObjectStateLike } from "./cloudflare-types.js";

/** Options of `durableTasks`. */
export interface DurableTasksOptions {
  /**
   * Connects to the MCP server, passing `store` to the client: `(store) => TaskClient.connect(url, { store })`.
   * Called once per object instance (again after an eviction, or after a failed connection).
   */
  connect: (store: TaskStore) => Promise<TaskClient>;
  /**
   * Hears of the tasks: status changes, input requests and endings. Awaited; an ending's record is deleted only
   * after it returns, so after an eviction it may hear of the same ending again: make it idempotent (key by
   * `taskId`). What it throws is reported as an `error` event and the ending is reported again at the next alarm.
   */
  onEvent?: (event: DurableTaskEvent) => void | Promise<void>;
  /** Prefix of the storage keys. Default `"mcp-tasks:"`. */
  prefix?: string;
  /** The shortest time between two polls of a task, whatever the server suggests. Default 1000 ms. */
  minPollMs?: number;
  /** The longest time between two polls, and the longest backoff after failed rounds. Default 300000 ms. */
  maxPollMs?: number;
  /** How long a round waits for the server to acknowledge a stored input answer. Default 15000 ms. */
  answerWaitMs?: number;
}

/** What `callTool` resolves with: the task now followed by the alarm, or the ending of a call that made none. */
export type DurableCall = { taskId: string; ref: TaskRef } | { taskId: undefined; outcome: TaskOutcome };

/** What `onEvent` hears. */
export type DurableTaskEvent =
  /** A poll found the task in a new status (or with a new status message). */
  | { type: "status"; taskId: string; toolName: string; status: string; statusMessage: string | undefined }
  /** The server asks for input: answer with `tasks.respond(taskId, key, response)`, now or later. Once per key. */
  | {
      type: "input";
      taskId: string;
      toolName: string;
      key: string;
      /** Which kind of request (undefined for a method this library does not know). */
      kind: InputKind | undefined;
      /** The request's `params`, as the server sent them: untrusted. */
      request: unknown;
    }
  /**
   * The task ended on the server (completed, failed, cancelled, not found, expired, or a result the client
   * refused): its record is deleted after this event.
   */
  | { type: "settled"; taskId: string; toolName: string; outcome: TaskOutcome }
  /** A round failed (the server unreachable, a protocol fault): the task is kept and polled again at `retryAt`. */
  | {
      type: "error";
      taskId: string | undefined;
      toolName: string | undefined;
      error: unknown;
      retryAt: number;
    };

/** Which kind of input a request asks for, named as `InputHandlers` names its handlers. */
export type InputKind = keyof InputHandlers;

/** A stored task, as `tasks.list()` shows it. */
export interface DurableTaskInfo {
  taskId: string;
  toolName: string;
  ref: TaskRef;
  nextPollAt: number | undefined;
  cancel: "requested" | "sent" | undefined;
}

/** The follower of one Durable Object's tasks. */
export interface DurableTasks {
  /**
   * Calls a tool. Resolves once the server created the task and its ref is stored (the alarm follows it from
   * then on; its ending goes to `onEvent`), or with the outcome of a call that created no task.
   */
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<DurableCall>;
  /** Stores a cancel request; the next alarm (set for now) sends `tasks/cancel`. False for an unknown task. */
  cancel(taskId: string): Promise<boolean>;
  /** Stores an answer to input request `key`; the next alarm (set for now) sends it. False for an unknown task. */
  respond(taskId: string, key: string, response: unknown): Promise<boolean>;
  /** The stored tasks. */
  list(): Promise<DurableTaskInfo[]>;
  /** Call from the object's `alarm()`: polls the due tasks, sends stored cancels and answers, sets the next alarm. */
  alarm(): Promise<void>;
}

const DEFAULTS = { minPollMs: 1000, maxPollMs: 300_000, answerWaitMs: 15_000 };
/** An input request's method → the `InputHandlers` kind that answers it. */
const INPUT_METHODS: Record<string, InputKind | undefined> = {
  "elicitation/create": "elicitation",
  "sampling/createMessage": "sampling",
  "roots/list": "roots",
};

/** Tool calls of the Durable Object `ctx`, followed by its alarm. */
export function durableTasks(ctx: DurableObjectStateLike, options: DurableTasksOptions): DurableTasks {
  if (typeof options?.connect !== "function")
    throw new TypeError("durableTasks: `connect` must be a function");
  const limits = { ...DEFAULTS, ...definedNumbers(options) };
  const storage = ctx.storage;
  // A new task's alarm is set with its ref, before the write resolves: an eviction right after it finds both.
  const store = recordStore(storage, { prefix: options.prefix }, true, async () => {
    const first = Date.now() + limits.minPollMs;
    const alarm = await storage.getAlarm();
    if (alarm === null || alarm > first) await storage.setAlarm(first);
  });
  const emit = async (event: DurableTaskEvent) => options.onEvent?.(event);
  let client: Promise<TaskClient> | undefined;

  const connected = () => {
    client ??= options.connect(store).catch((error: unknown) => {
      client = undefined;
      throw error;
    });
    return client;
  };

  /** Sets the alarm to the earliest due record, or clears it when none is left. */
  const schedule = async () => {
    let next: number | undefined;
    for (const record of (await store.records()).values()) {
      const at = record.over ? 0 : (record.nextPollAt ?? 0);
      next = next === undefined ? at : Math.min(next, at);
    }
    if (next === undefined) await storage.deleteAlarm();
    else await storage.setAlarm(Math.max(next, Date.now()));
  };

  const find = async (taskId: string) => {
    for (const [key, record] of await store.records()) if (record.ref.taskId === taskId) return key;
    return undefined;
  };

  const backoff = (failures: number) =>
    Date.now() + Math.min(limits.maxPollMs, limits.minPollMs * 2 ** Math.min(failures, 20));

  /** One round for one task: a stored cancel, one poll, stored answers; the record says when to come back. */
  const round = async (key: string, record: TaskRecord, tasks: TaskClient) => {
    const { ref } = record;
    if (record.cancel === "requested") {
      // Sent once the server answered, whatever it said: a refusal (the task is gone or over) is for the poll
      // below to report. A transport fault leaves it stored for the next round.
      await tasks.cancel(ref).catch((error: unknown) => {
        if (error instanceof TransportError) throw error;
      });
      await store.patch(key, (r) => (r.cancel = "sent"));
    }
    const handle = tasks.task(ref, { inputHandlers: inputHandlers(record) });
    const first = await firstWord(handle);
    const answered = pendingAnswers(record, handle);
    if (!handle.isSettled && answered.length > 0) await acknowledged(handle, answered, limits.answerWaitMs);
    handle.detach();
    const outcome = await handle.outcome();
    if (isOver(outcome, handle)) {
      await store.patch(key, (r) => (r.over = true));
      await emit({ type: "settled", taskId: ref.taskId, toolName: ref.toolName, outcome });
      await store.forget(key);
      return;
    }
    // Kept, and polled again after a backoff.
    if (outcome.kind !== "detached") throw "error" in outcome ? outcome.error : new Error(outcome.kind);
    const snapshot = handle.snapshot;
    const seen = snapshot === undefined ? undefined : `${snapshot.status}\n${snapshot.statusMessage ?? ""}`;
    if (first && snapshot !== undefined && seen !== record.seen) {
      await emit({
        type: "status",
        taskId: ref.taskId,
        toolName: ref.toolName,
        status: snapshot.status,
        statusMessage: snapshot.statusMessage,
      });
    }
    const asking = snapshot?.status === "input_required" ? Object.entries(snapshot.inputRequests ?? {}) : [];
    const fresh = asking.filter(
      ([inputKey]) => !record.asked?.includes(inputKey) && !record.answers?.[inputKey],
    );
    if (fresh.length > 0) {
      await store.patch(key, (r) => (r.asked = [...(r.asked ?? []), ...fresh.map(([inputKey]) => inputKey)]));
      for (const [inputKey, request] of fresh) {
        const kind = INPUT_METHODS[(request as { method?: string }).method ?? ""];
        const params = (request as { params?: unknown }).params;
        await emit({
          type: "input",
          taskId: ref.taskId,
          toolName: ref.toolName,
          key: inputKey,
          kind,
          request: params,
        });
      }
    }
    const interval = clamp(snapshot?.pollIntervalMs ?? limits.minPollMs, limits);
    await store.patch(key, (r) => {
      r.nextPollAt = Date.now() + interval;
      r.seen = seen;
      delete r.failures;
    });
  };

  /** Handlers that give the stored answer for a key, or wait for the round to end (`respond` stores one). */
  const inputHandlers = (record: TaskRecord): InputHandlers => {
    const handler = async (_params: unknown, context: InputContext): Promise<never> => {
      const stored = record.answers?.[context.key];
      if (stored !== undefined) return stored as never;
      // No answer yet: the round detaches, which aborts this wait; the user heard of the key from the snapshot.
      return new Promise<never>((_, reject) => {
        context.signal.addEventListener("abort", () => reject(context.signal.reason as Error), {
          once: true,
        });
      });
    };
    return { elicitation: handler, sampling: handler, roots: handler };
  };

  return {
    async callTool(name, args = {}, callOptions = {}) {
      const tasks = await connected();
      const handle = tasks.callTool(name, args, callOptions);
      const taskId = await handle.created; // the store's put resolved before this (durable before visible)
      if (taskId === undefined) return { taskId: undefined, outcome: await handle.outcome() };
      const ref = await handle.ref;
      const key = ref === undefined ? undefined : await store.keyOf(ref);
      const stored = key === undefined ? undefined : await storage.get<TaskRecord>(key);
      if (ref === undefined || key === undefined || stored === undefined) {
        await handle.cancel();
        throw new TypeError(
          "durableTasks: the task's ref was not stored: `connect` must pass its `store` to TaskClient.connect",
        );
      }
      const interval = clamp(handle.snapshot?.pollIntervalMs ?? limits.minPollMs, limits);
      handle.detach(); // from now on the alarm follows the task
      await store.patch(key, (r) => (r.nextPollAt = Date.now() + interval));
      await schedule();
      return { taskId, ref };
    },

    async cancel(taskId) {
      const key = await find(taskId);
      if (key === undefined) return false;
      await store.patch(key, (r) => {
        if (r.cancel === undefined) r.cancel = "requested";
        r.nextPollAt = Date.now();
      });
      await storage.setAlarm(Date.now());
      return true;
    },

    async respond(taskId, inputKey, response) {
      if (typeof inputKey !== "string" || inputKey === "") {
        throw new TypeError("durableTasks.respond: the input key must be a non-empty string");
      }
      const key = await find(taskId);
      if (key === undefined) return false;
      await store.patch(key, (r) => {
        r.answers = { ...r.answers, [inputKey]: response };
        r.nextPollAt = Date.now();
      });
      await storage.setAlarm(Date.now());
      return true;
    },

    async list() {
      return [...(await store.records()).values()].map((record) => ({
        taskId: record.ref.taskId,
        toolName: record.ref.toolName,
        ref: record.ref,
        nextPollAt: record.nextPollAt,
        cancel: record.cancel,
      }));
    },

    async alarm() {
      const due = [...(await store.records())].filter(
        ([, record]) => record.over || (record.nextPollAt ?? 0) <= Date.now(),
      );
      if (due.length > 0) {
        let tasks: TaskClient | undefined;
        try {
          tasks = await connected();
        } catch (error) {
          await Promise.all(due.map(([key, record]) => failed(key, record, error)));
        }
        if (tasks !== undefined) {
          const live = tasks;
          await Promise.all(
            due.map(([key, record]) => round(key, record, live).catch((error) => failed(key, record, error))),
          );
        }
      }
      await schedule();
    },
  };

  async function failed(key: string, record: TaskRecord, error: unknown): Promise<void> {
    const failures = (record.failures ?? 0) + 1;
    const retryAt = backoff(failures - 1);
    await store.patch(key, (r) => {
      r.failures = failures;
      r.nextPollAt = retryAt;
    });
    const { taskId, toolName } = record.ref;
    await emit({ type: "error", taskId, toolName, error, retryAt }).catch(() => undefined);
  }
}

/** Resolves after the handle's first update or its end; true when an update came. */
function firstWord(handle: TaskHandle): Promise<boolean> {
  return new Promise((resolve) => {
    handle.once("update", () => resolve(true));
    void handle.outcome().then(() => resolve(false));
  });
}

/** Keys of stored answers the server still asks for. */
function pendingAnswers(record: TaskRecord, handle: TaskHandle): string[] {
  const snapshot = handle.snapshot;
  const asked = snapshot?.status === "input_required" ? Object.keys(snapshot.inputRequests ?? {}) : [];
  return asked.filter((key) => record.answers?.[key] !== undefined);
}

/** Waits until the server acknowledged `keys` (the handle's ref lists them as answered), ended, or `ms` passed. */
async function acknowledged(handle: TaskHandle, keys: string[], ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!handle.isSettled && Date.now() < until) {
    const ref = await handle.ref;
    if (ref !== undefined && keys.every((key) => ref.answeredInputKeys.includes(key))) return;
    await new Promise<void>((resolve) => {
      const done = () => resolve();
      handle.once("update", done);
      setTimeout(done, 100);
    });
  }
}

/** Whether the server has said its last word (the record can go once the user heard of it). */
function isOver(outcome: TaskOutcome, handle: TaskHandle): boolean {
  switch (outcome.kind) {
    case "completed":
    case "failed":
    case "cancelled":
    case "not_found":
    case "expired":
      return true;
    case "error": {
      const status = handle.snapshot?.status;
      return status === "completed" || status === "failed" || status === "cancelled";
    }
    default:
      return false;
  }
}

function clamp(ms: number, limits: { minPollMs: number; maxPollMs: number }): number {
  return Math.min(limits.maxPollMs, Math.max(limits.minPollMs, ms));
}

function definedNumbers(options: DurableTasksOptions): Partial<typeof DEFAULTS> {
  const out: Partial<typeof DEFAULTS> = {};
  for (const name of ["minPollMs", "maxPollMs", "answerWaitMs"] as const) {
    const value = options[name];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new TypeError(`durableTasks: \`${name}\` must be a non-negative number of milliseconds`);
    }
    out[name] = value;
  }
  return out;
}
