/**
 * One consumer's position in a handle's stream of updates. Every `for await (… of handle)` gets its own
 * cursor, so a slow consumer never holds up another, and each one sees the terminal update.
 *
 * Memory stays bounded however slowly a consumer reads: while it is not waiting, a new update whose status
 * equals the last queued one replaces it (only the message or the input requests changed, and the newer
 * state is the one that matters), and at most `MAX_QUEUED` updates are held, the oldest dropped first. The
 * terminal update is always the last one queued, so it is never dropped.
 */
import type { TaskUpdate } from "./types.js";

/** Updates held for a consumer that is not reading. Beyond this the oldest are dropped. */
export const MAX_QUEUED = 16;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/** What a cursor tells the handle it reads from. */
export interface CursorOwner<T> {
  /** The consumer stopped reading (`break`, `return`, a thrown error): stop delivering to it. */
  releaseCursor(cursor: UpdateCursor<T>): void;
}

type Waiter<T> = (result: IteratorResult<TaskUpdate<T>, undefined>) => void;

export class UpdateCursor<T> implements AsyncIterableIterator<TaskUpdate<T>, undefined> {
  private queue: TaskUpdate<T>[] | undefined = undefined;
  /** Pending `next()` calls; there is one at a time under `for await`, more only with manual calls. */
  private waiters: Waiter<T>[] | undefined = undefined;
  /** No more updates will come: the handle ended or the consumer returned. */
  private finished = false;

  constructor(private owner: CursorOwner<T> | undefined) {}

  /** Delivers an update: straight to a waiting `next()`, else into the queue. */
  push(update: TaskUpdate<T>): void {
    if (this.finished) return;
    const waiter = this.waiters?.shift();
    if (waiter) {
      waiter({ done: false, value: update });
      return;
    }
    const queue = (this.queue ??= []);
    const last = queue[queue.length - 1];
    if (last !== undefined && !update.terminal && last.status === update.status) {
      queue[queue.length - 1] = update;
      return;
    }
    queue.push(update);
    if (queue.length > MAX_QUEUED) queue.shift();
  }

  /** No more updates will come; the consumer still reads what is queued, then is done. */
  end(): void {
    this.finished = true;
    this.owner = undefined;
    this.flushWaiters();
  }

  next(): Promise<IteratorResult<TaskUpdate<T>, undefined>> {
    const value = this.queue?.shift();
    if (value !== undefined) return Promise.resolve({ done: false, value });
    if (this.finished) return Promise.resolve(DONE);
    return new Promise((resolve) => (this.waiters ??= []).push(resolve));
  }

  /** Called when a consumer leaves a `for await` loop early: releases the cursor and what it queued. */
  return(): Promise<IteratorResult<TaskUpdate<T>, undefined>> {
    const owner = this.owner;
    this.finished = true;
    this.owner = undefined;
    this.queue = undefined;
    this.flushWaiters();
    owner?.releaseCursor(this);
    return Promise.resolve(DONE);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private flushWaiters(): void {
    const waiters = this.waiters;
    this.waiters = undefined;
    if (waiters) for (const waiter of waiters) waiter(DONE);
  }
}
