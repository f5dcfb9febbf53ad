/**
 * The reference server over stdio: newline-delimited JSON-RPC on a pair of streams (the process's
 * own stdin/stdout by default). The SDK's `serveStdio` owns the connection; a transport decorator in
 * front of it records every message, serves `subscriptions/listen` with `taskIds`, and polishes
 * outgoing results the same way the HTTP server does.
 */
import type { Readable, Writable } from "node:stream";
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "./load-server-sdk.js";
import type { ListenMessage } from "./listen.js";
import type { TimerHandle } from "./clock.js";
import { checkEra } from "./era.js";
import { startLegacyStdioServer } from "./legacy/index.js";
import { asTaskListenRequest, listenClosing, openTaskListen } from "./listen.js";
import type { ServerCore, TaskServer, TaskServerOptions } from "./server-core.js";
import { createServerCore } from "./server-core.js";
import type { ServerFactory } from "./sdk-server.js";
import { polishOutgoing } from "./wire-polish.js";
import { loadServerTracing, SpansById } from "./server-tracing.js";

export interface StdioTaskServerOptions extends TaskServerOptions {
  /** Where requests arrive. Default `process.stdin`. */
  readonly stdin?: Readable;
  /** Where responses go. Default `process.stdout`. */
  readonly stdout?: Writable;
}

/** Records inbound messages and serves task listens before the SDK sees them. */
class TaskListenTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private readonly listens = new Map<string | number, () => void>();
  private spans = new SpansById(undefined);

  constructor(
    private readonly inner: Transport,
    private readonly core: ServerCore,
    private readonly options: StdioTaskServerOptions,
  ) {}

  async start(): Promise<void> {
    // Before the first message can arrive: the tracer (and @opentelemetry/api) only with `tracerProvider`.
    this.spans = new SpansById(await loadServerTracing(this.options.tracerProvider));
    this.inner.onmessage = (message, extra) => this.receive(message, extra);
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => {
      this.closeListens();
      this.spans.close();
      this.onclose?.();
    };
    await this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    this.spans.sent(message);
    return this.inner.send(polishOutgoing(message), options);
  }

  async close(): Promise<void> {
    this.closeListens();
    this.spans.close();
    await this.inner.close();
  }

  setProtocolVersion = (version: string): void => this.inner.setProtocolVersion?.(version);

  private receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    this.core.log.record({
      transport: "stdio",
      httpMethod: undefined,
      headers: {},
      body: message,
      receivedAt: this.core.clock.now(),
    });
    this.spans.received(message);
    const listen = asTaskListenRequest(message);
    if (listen !== undefined) return this.serveListen(listen);
    if (this.endsListen(message)) return;
    this.onmessage?.(message, extra);
  }

  private serveListen(listen: NonNullable<ReturnType<typeof asTaskListenRequest>>): void {
    const write = (out: ListenMessage) => {
      this.spans.sent(out);
      void this.inner.send(out as JSONRPCMessage).catch((error: Error) => this.core.reportError(error));
    };
    const core = this.core;
    const notify = (out: ListenMessage) => {
      core.sent.record(listen.id, out, core.clock.now());
      write(out);
    };
    const opening = openTaskListen(
      core.engine,
      listen,
      notify,
      core.listen,
      core.nextListenIndex(),
      core.clock,
    );
    if (opening.kind === "rejected") return write(opening.response);
    const timers: TimerHandle[] = [];
    const close = () => {
      for (const timer of timers) core.clock.clearTimeout(timer);
      opening.close();
    };
    this.listens.set(listen.id, close);
    opening.start();
    if (opening.dropAfterMs !== undefined) {
      // stdio has no stream per listen to break: the subscription falls silent instead.
      timers.push(core.clock.setTimeout(close, opening.dropAfterMs));
    }
    if (opening.endAfterMs !== undefined) {
      const end = () => {
        if (!this.listens.delete(listen.id)) return;
        close();
        write(listenClosing(listen.id));
      };
      timers.push(core.clock.setTimeout(end, opening.endAfterMs));
    }
  }

  /** On stdio a listen ends with `notifications/cancelled` naming its request id. */
  private endsListen(message: JSONRPCMessage): boolean {
    if (!("method" in message) || message.method !== "notifications/cancelled") return false;
    const requestId = (message.params as { requestId?: string | number } | undefined)?.requestId;
    const close = requestId === undefined ? undefined : this.listens.get(requestId);
    if (close === undefined) return false;
    close();
    this.listens.delete(requestId as string | number);
    this.spans.ended(requestId as string | number);
    return true;
  }

  private closeListens(): void {
    for (const close of this.listens.values()) close();
    this.listens.clear();
  }
}

/**
 * Serve the reference server over stdio. The returned handle closes the connection; the streams
 * themselves stay open (end stdin from the client side to finish the process). With
 * `era: "2025-11-25"` the v1 SDK is loaded first, so the handle comes as a promise.
 */
export function startStdioTaskServer(
  options: StdioTaskServerOptions & { era: "2025-11-25" },
): Promise<TaskServer>;
export function startStdioTaskServer(options?: StdioTaskServerOptions & { era?: "2026-07-28" }): TaskServer;
export function startStdioTaskServer(options?: StdioTaskServerOptions): TaskServer | Promise<TaskServer>;
export function startStdioTaskServer(options: StdioTaskServerOptions = {}): TaskServer | Promise<TaskServer> {
  if (checkEra(options) === "2025-11-25") return startLegacyStdioServer(options);
  const core = createServerCore(options);
  const transport = new TaskListenTransport(
    new StdioServerTransport(options.stdin, options.stdout),
    core,
    options,
  );
  // Listens without `taskIds` are the SDK's: its pinned instance routes a list_changed onto them.
  let pinned: ReturnType<ServerFactory> | undefined;
  const factory: ServerFactory = () => (pinned = core.factory());
  core.engine.onToolsChanged(() => {
    if (pinned?.transport === undefined) return; // no connection opened yet
    pinned.sendToolListChanged().catch((error: Error) => core.reportError(error));
  });
  const handle = serveStdio(factory, { transport, legacy: "reject", onerror: core.reportError });
  let closing: Promise<void> | undefined;
  return {
    tasks: core.engine.store,
    requests: core.log,
    notifications: core.sent,
    setTools: (tools) => core.engine.setTools(tools),
    toolsChanged: () => core.engine.toolsChanged(),
    close: () =>
      (closing ??= (async () => {
        core.engine.close();
        await handle.close();
      })()),
  };
}
