/**
 * Owner of which run context a run gets. `buildRunContext` makes the one every run of a client shares, from the
 * client's settings and parts (its scheduler and alarm clock are handed in, so a facade over several servers can
 * share one); `refContext` gives a task known by ref the context of the era and HTTP session it lives in (the
 * era rule itself is `refEra`, ../run/context.ts); `withCallHandlers` lets one call's input handlers stand in
 * for the client's.
 */
import { redactTaskId } from "../protocol/logging.js";
import { retryDelay } from "../scheduler/retry.js";
import type { Session } from "../session/session.js";
import type { RequestHeaders } from "../session/request-headers.js";
import type { ProtocolEra, ServerInfo } from "../session/types.js";
import type { InputHandlers } from "../input/types.js";
import type { EraParts } from "../eras/era-parts.js";
import type { TaskRef } from "../task/ref.js";
import { contextForRef, refEra, type RunContext } from "../run/context.js";
import { toolOutcome } from "../run/endings.js";
import { tracked } from "../run/ref-life.js";
import type { ToolCatalog } from "../tools/catalog.js";
import { callSender } from "../tools/param-mirror.js";
import { OutputChecks } from "../tools/output-checks.js";
import type { ClientSettings } from "./options.js";
import type { ClientRefs } from "./refs.js";
import type { Shutdown } from "./shutdown.js";
import { SessionBoundRequests, type JoinedHttpSessions } from "./joined-sessions.js";

/** What the shared run context is built from. */
export interface RunContextParts {
  session: Session;
  server: ServerInfo;
  settings: ClientSettings;
  catalog: ToolCatalog;
  era: EraParts;
  /** The per-request headers of the client's own transport, when it mirrors `Mcp-Param-*`. */
  mirrorHeaders: RequestHeaders | undefined;
  scheduler: RunContext["scheduler"];
  alarms: RunContext["alarms"];
  refs: ClientRefs;
  url: string | undefined;
  /** The client's end: its signal and the store writes it waits for (./shutdown.ts). */
  shutdown: Pick<Shutdown, "signal" | "trackWrite" | "calls">;
  /** The client's bookkeeping as runs learn their task id, leave a task running, and end. */
  hooks: Pick<RunContext, "following" | "orphaned" | "released">;
}

/** The run context every run of one client shares. */
export function buildRunContext(parts: RunContextParts): RunContext {
  const { session, server, settings, catalog, era, refs } = parts;
  const { options, retry, log, store } = settings;
  return {
    channel: session,
    sendCall: tracked(callSender(session, catalog, parts.mirrorHeaders), parts.shutdown.calls),
    tasks: era.tasks,
    dialect: era.dialect,
    scheduler: parts.scheduler,
    alarms: parts.alarms,
    cadence: { polling: settings.polling, safetyNetMs: options.notificationSafetyNetMs },
    retry,
    options,
    config: {
      pollRetries: retry.retries,
      cancelGraceMs: options.cancelGraceMs,
      ttlGraceMs: options.ttlGraceMs,
      durable: store !== undefined,
    },
    identity: { name: server.serverInfo?.name, version: server.serverInfo?.version, url: parts.url },
    log,
    store,
    trackWrite: parts.shutdown.trackWrite,
    shutdown: parts.shutdown.signal,
    now: () => Date.now(),
    retryDelay: (attempt, error) => retryDelay(attempt, retry, error),
    toOutcome: toolOutcome,
    outputChecks: outputChecksFor(catalog, server, settings),
    redact: redactTaskId,
    refFor: (fields) => refs.make(fields, server.era, refs.ownHttpSession),
    ...parts.hooks,
  };
}

/** The run context of a task known by ref, and what lets go of it when no run is made. */
export interface RefContext {
  context: RunContext;
  /** Lets go of a joined session when no run is made (a `cancel`); a run releases it as it ends. */
  release?: () => void;
}

/** What the run context of a task known by ref is made from: the client's own context, and its parts. */
export interface RefContextParts {
  own: RunContext;
  era: EraParts;
  /** The connection's protocol generation. */
  connection: ProtocolEra;
  refs: ClientRefs;
  /** Undefined for a client not connected by URL, which cannot join another HTTP session. */
  joined: JoinedHttpSessions | undefined;
}

/**
 * The run context of a task known by ref: its requests in the right generation and, for a 2025-11-25 task made
 * in another HTTP session, in that session (./joined-sessions.ts). Its refs keep the era and session they had.
 */
export function refContext(parts: RefContextParts, ref: Partial<TaskRef>, operation: string): RefContext {
  const { own, connection, refs, joined } = parts;
  const base = contextForRef(own, parts.era, connection, ref, operation);
  const era = refEra(ref, connection);
  const session = ref.session;
  const elsewhere = era === "legacy" && session !== undefined && session.id !== refs.ownHttpSession?.id;
  if (elsewhere && joined !== undefined) {
    const inSession = joined.get(session);
    const release = inSession.hold();
    const tasks = new SessionBoundRequests(inSession, base.tasks, own.retry);
    const context: RunContext = {
      ...base,
      channel: inSession,
      tasks,
      refFor: (fields) => refs.make(fields, "legacy", inSession.ended ? undefined : inSession.ref),
      released: (run) => {
        tasks.forget(run.taskId);
        release();
        base.released(run);
      },
    };
    return { context, release };
  }
  if (elsewhere) {
    own.log.warn("cannot join the task's HTTP session without a URL; following it in this client's session", {
      taskId: redactTaskId(ref.taskId ?? ""),
    });
  }
  // The client's own context writes refs of its era and session: right for most refs, not for all.
  if (era === connection && session?.id === refs.ownHttpSession?.id) return { context: base };
  return { context: { ...base, refFor: (fields) => refs.make(fields, era, session) } };
}

/** The run context of one call whose own `inputHandlers` take the place of the client's, kind by kind. */
export function withCallHandlers(context: RunContext, handlers: InputHandlers | undefined): RunContext {
  if (handlers === undefined) return context;
  const defined = Object.fromEntries(Object.entries(handlers).filter(([, handler]) => handler !== undefined));
  const inputHandlers = { ...context.options.inputHandlers, ...defined };
  return { ...context, options: { ...context.options, inputHandlers } };
}

/** The output schema checks of a client (none with `validateOutput: false`). */
function outputChecksFor(
  catalog: ToolCatalog,
  server: ServerInfo,
  { options, log }: ClientSettings,
): OutputChecks | undefined {
  const mode = options.validateOutput;
  if (mode === false) return undefined;
  // A server whose capabilities are known and name no tools has no tools/list to ask.
  const capabilities = server.discover?.capabilities ?? server.capabilities;
  return new OutputChecks(catalog, {
    validator: mode === "bundled" ? undefined : mode,
    listsTools: capabilities === undefined || capabilities.tools !== undefined,
    warn: (message, error) => log.warn(message, error),
  });
}
