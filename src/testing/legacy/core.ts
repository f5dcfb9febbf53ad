/** What every transport of the 2025-11-25 server shares: the engine, the input relay, the log and shutdown. */
import { systemClock } from "../clock.js";
import { TaskEngine } from "../engine.js";
import { fixtureTools } from "../fixtures.js";
import { NotificationLog } from "../notification-log.js";
import { RequestLog } from "../request-log.js";
import { DEFAULT_SERVER_INFO } from "../server-core.js";
import type { TaskServerOptions } from "../server-core.js";
import type { ToolDefinition } from "../tool.js";
import type { LegacyCore } from "./connection.js";
import { InputRelay } from "./input-relay.js";
import { pageSizeOf, refuse2026Options, refuse2026Tools } from "./options.js";
import { loadLegacySdk } from "./sdk.js";
import { loadServerTracing, type ServerTracing } from "../server-tracing.js";

export interface LegacyServerCore extends LegacyCore {
  readonly log: RequestLog;
  /** The server's spans (`tracerProvider`), or undefined. */
  readonly tracing: ServerTracing | undefined;
  /** Abort waits, stop timers and forget tasks. */
  shutdown(): void;
  /** `TaskServer.setTools`, refusing 2026-only tool options as the start does. */
  setTools(tools: readonly ToolDefinition[]): void;
}

/**
 * Check the options against the 2025-11-25 mode, load the v1 SDK and build the shared state.
 * @throws {EraOptionError} for 2026-only options; {@link LegacySdkMissingError} without the v1 SDK.
 */
export async function createLegacyCore(options: TaskServerOptions & object): Promise<LegacyServerCore> {
  const tools = options.tools ?? fixtureTools();
  refuse2026Options(options, tools);
  const pageSize = pageSizeOf(options.taskListPageSize);
  const sdk = await loadLegacySdk();
  const tracing = await loadServerTracing(options.tracerProvider);
  const clock = options.clock ?? systemClock;
  const reportError = (error: Error) => options.onError?.(error);
  const engine = new TaskEngine({ tools, clock, onError: reportError });
  const stop = new AbortController();
  return {
    sdk,
    engine,
    relay: new InputRelay(engine, reportError),
    clock,
    serverInfo: options.serverInfo ?? DEFAULT_SERVER_INFO,
    pageSize,
    reportError,
    shutdownSignal: stop.signal,
    log: new RequestLog(),
    sent: new NotificationLog(),
    tracing,
    shutdown: () => {
      stop.abort();
      engine.close();
    },
    setTools: (next) => {
      refuse2026Tools(next);
      engine.setTools(next);
    },
  };
}
