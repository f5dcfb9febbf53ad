/**
 * The 2025-11-25 server over stdio: the v1 SDK's stdio transport and one SDK `Server`, with every inbound
 * message recorded before the SDK sees it.
 */
import type { TaskServer } from "../server-core.js";
import type { StdioTaskServerOptions } from "../stdio-server.js";
import { createLegacyServer } from "./connection.js";
import { createLegacyCore } from "./core.js";
import { SpansById } from "../server-tracing.js";

/** {@link startStdioTaskServer} with `era: "2025-11-25"`. */
export async function startLegacyStdioServer(options: StdioTaskServerOptions): Promise<TaskServer> {
  const core = await createLegacyCore(options);
  const transport = new core.sdk.StdioServerTransport(options.stdin, options.stdout);
  const server = createLegacyServer(core);
  server.onerror = (error) => core.reportError(error);
  await server.connect(transport);
  const spans = new SpansById(core.tracing);
  // connect() installed the SDK's receiver; the log (and the request's span) goes in front of it.
  const receive = transport.onmessage;
  transport.onmessage = (message) => {
    core.log.record({
      transport: "stdio",
      httpMethod: undefined,
      headers: {},
      body: message,
      receivedAt: core.clock.now(),
    });
    spans.received(message);
    receive?.(message);
  };
  if (core.tracing !== undefined) {
    const send = transport.send.bind(transport);
    transport.send = (message) => {
      spans.sent(message);
      return send(message);
    };
  }
  let closing: Promise<void> | undefined;
  return {
    tasks: core.engine.store,
    requests: core.log,
    notifications: core.sent,
    setTools: (tools) => core.setTools(tools),
    toolsChanged: () => core.engine.toolsChanged(),
    close: () =>
      (closing ??= (async () => {
        core.shutdown();
        await server.close();
      })()),
  };
}
