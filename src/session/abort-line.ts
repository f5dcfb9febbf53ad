/**
 * One request's abort over HTTP, without an `AbortSignal` unless something asks for one. Every poll has one (the
 * session aborts it when the request times out, is abandoned or the connection closes; see ./pending.ts), and on
 * Node an `AbortSignal` is an `EventTarget`, whose making costs a poll more than the rest of its bookkeeping
 * (docs/performance.md, "Over HTTP"). undici's dispatcher API takes any object with `aborted`, `reason` and
 * `addEventListener`/`removeEventListener` for `abort` as a request's signal, so on the undici path this line
 * is that signal; `fetch` (and any transport that reads `requestSignal`) gets a real one, made on first use.
 *
 * Owner of: when a request's exchange counts as aborted, and who hears of it.
 */

/**
 * A request's abort that undici takes as its signal and that makes an `AbortSignal` (`signal`) only when asked:
 * what the session hands its transport as `SendOptions.exchange`.
 */
export class AbortLine {
  aborted = false;
  reason: unknown;
  private listeners: ((this: AbortLine) => void)[] | undefined;
  private controller: AbortController | undefined;

  /** A real signal that follows this line, made when first asked for (`fetch`, a transport of someone else's). */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.aborted) this.controller.abort(this.reason);
    return this.controller.signal;
  }

  addEventListener(_type: "abort", listener: (this: AbortLine) => void): void {
    if (!this.aborted) (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: "abort", listener: (this: AbortLine) => void): void {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index !== -1) this.listeners?.splice(index, 1);
  }

  /** Aborts once, with `reason` or else the `AbortError` `AbortController.abort` gives. */
  abort(reason: unknown = AbortSignal.abort().reason): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    for (const listener of this.listeners ?? []) listener.call(this);
    this.listeners = undefined;
  }
}

/** `init` for a `fetch`, which takes only a real signal: a line's is made now. */
export function withRealSignal(init: RequestInit | undefined): RequestInit | undefined {
  return init?.signal instanceof AbortLine ? { ...init, signal: init.signal.signal } : init;
}
