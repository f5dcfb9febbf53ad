/**
 * The `logger` option: any object with `debug`, `info`, `warn` and `error` methods (console and pino both
 * fit). The client reports what no single handle owns there: transport errors, a dead connection, scheduler
 * faults, retries. Task ids are redacted before anything reaches it.
 */
export interface Logger {
  debug(message: string, ...details: unknown[]): void;
  info(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

const ignore = (): void => undefined;

export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore };

/** A logger whose methods all exist and never throw into the client. */
export function safeLogger(logger: Partial<Logger> | undefined): Logger {
  if (logger === undefined) return silentLogger;
  if (typeof logger !== "object" || logger === null) {
    throw new TypeError("TaskClient: `logger` must be an object with debug/info/warn/error methods");
  }
  const level = (name: keyof Logger) => {
    const method = logger[name];
    if (typeof method !== "function") return ignore;
    return (message: string, ...details: unknown[]) => {
      try {
        method.call(logger, message, ...details);
      } catch {
        // A broken logger must not break the task it reports on.
      }
    };
  };
  return { debug: level("debug"), info: level("info"), warn: level("warn"), error: level("error") };
}

/**
 * Task ids are bearer-like secrets (a server may use them as the only key to a task's state), so they never
 * appear whole in error messages or log lines. Errors still carry the full id as a property, so callers can
 * resume or cancel the task.
 */
export function redactTaskId(taskId: string): string {
  if (taskId.length <= 8) return "…";
  return `${taskId.slice(0, 4)}…${taskId.slice(-2)}`;
}
