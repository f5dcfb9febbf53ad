/**
 * The one owner of how the listeners of a client and of a handle are kept and called (`on`, `once`, `off`,
 * `emit`), with the semantics of eventemitter3, whose listener types the public API keeps: listeners run in the
 * order they were added, with the arguments given to `emit`; an `emit` calls the listeners present when it
 * started (one added or removed meanwhile counts from the next `emit`); a `once` listener is removed before it is
 * called; `off(event, fn)` removes every registration of `fn` for `event`, `off(event)` all of them; a listener
 * that throws stops the `emit`, which rethrows; an `error` without listeners is not thrown.
 *
 * Written here in a few lines because eventemitter3 is a CommonJS module: with its interop it weighed about
 * 1 KB gzip of the main entry's browser bundle, for the five methods used.
 */

/** A listener as kept: the public `on`/`once`/`off` of the client and of the handle type it. */
type Listener = (...args: unknown[]) => void;

interface Registration {
  fn: Listener;
  once: boolean;
}

export class Emitter<Events extends { [E in keyof Events]: (...args: never[]) => void }> {
  // Replaced, never changed in place, so an `emit` under way keeps iterating the listeners it started with.
  private readonly listeners = new Map<keyof Events, readonly Registration[]>();

  on(event: keyof Events, fn: unknown): this {
    return this.add(event, fn, false);
  }

  once(event: keyof Events, fn: unknown): this {
    return this.add(event, fn, true);
  }

  off(event: keyof Events, fn?: unknown): this {
    const kept = fn === undefined ? [] : this.registrations(event).filter((entry) => entry.fn !== fn);
    return this.set(event, kept);
  }

  /** Calls the event's listeners; whether there were any. */
  emit<E extends keyof Events>(event: E, ...args: Parameters<Events[E]>): boolean {
    const entries = this.listeners.get(event);
    if (entries === undefined) return false;
    for (const entry of entries) {
      if (entry.once)
        this.set(
          event,
          this.registrations(event).filter((other) => other !== entry),
        );
      entry.fn.apply(this, args);
    }
    return true;
  }

  removeAllListeners(): this {
    this.listeners.clear();
    return this;
  }

  private add(event: keyof Events, fn: unknown, once: boolean): this {
    if (typeof fn !== "function") throw new TypeError("The listener must be a function");
    return this.set(event, [...this.registrations(event), { fn: fn as Listener, once }]);
  }

  private registrations(event: keyof Events): readonly Registration[] {
    return this.listeners.get(event) ?? [];
  }

  private set(event: keyof Events, entries: readonly Registration[]): this {
    if (entries.length > 0) this.listeners.set(event, entries);
    else this.listeners.delete(event);
    return this;
  }
}
