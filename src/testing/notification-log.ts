/**
 * Every notification the server wrote about tasks and tools, in order, so a client test can prove what was actually delivered:
 * that a duplicate really went out twice, that notifications really went out of order, or when an
 * acknowledgement left the server. The counterpart of {@link RequestLog}, for the other direction.
 */

/** One notification as the server wrote it. */
export interface SentNotification {
  /**
   * The id of the `subscriptions/listen` request whose stream carried it; `undefined` for a 2025-11-25
   * notification, which belongs to no listen.
   */
  readonly listenId: string | number | undefined;
  /**
   * `notifications/subscriptions/acknowledged`, `notifications/tasks`, `notifications/tools/list_changed`, or
   * (2025-11-25) `notifications/tasks/status`.
   */
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
  /** When it was written, on the server's clock (ms since the epoch). */
  readonly sentAt: number;
}

/** The log a running server exposes as `server.notifications`. */
export class NotificationLog {
  private readonly entries: SentNotification[] = [];

  /** Every notification written, oldest first (a copy); a scripted duplicate appears twice. */
  all(): SentNotification[] {
    return [...this.entries];
  }

  /** Notifications of one method, oldest first. */
  forMethod(method: string): SentNotification[] {
    return this.entries.filter((entry) => entry.method === method);
  }

  /** How many entries the log holds. */
  get size(): number {
    return this.entries.length;
  }

  /** Forgets every entry so far, e.g. between the steps of a test. */
  clear(): void {
    this.entries.length = 0;
  }

  /** @internal Called by the transports for each message they write; anything without a method is skipped. */
  record(listenId: string | number | undefined, message: Record<string, unknown>, sentAt: number): void {
    const { method, params } = message;
    if (typeof method !== "string") return;
    const fields = typeof params === "object" && params !== null ? (params as Record<string, unknown>) : {};
    this.entries.push({ listenId, method, params: fields, sentAt });
  }
}
