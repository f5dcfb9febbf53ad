/**
 * The v1 SDK `Client` (`@modelcontextprotocol/sdk`) connected to the kit's 2025-11-25 server, over
 * Streamable HTTP or over stdio. The stdio transport here runs the server in-process on a pair of pipes, so
 * a test can use every server option (clock, page size) and read `server.requests`; the bin's `--era` is
 * covered separately with the SDK's own process-spawning transport.
 */
import { PassThrough } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import {
  startStdioTaskServer,
  startTaskServer,
  type TaskServer,
  type TaskServerOptions,
} from "mcp-tasks/testing";

/** A client transport over two in-process pipes, newline-delimited as on a real stdio connection. */
class PipeClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}

  start(): Promise<void> {
    this.fromServer.on("data", (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) {
        this.onmessage?.(message);
      }
    });
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
    return Promise.resolve();
  }
}

export type LegacyTransportKind = "http" | "stdio";

export interface LegacyConnection {
  readonly server: TaskServer;
  readonly client: Client;
  close(): Promise<void>;
}

/** What the test client declares: form elicitation, sampling and roots, so every fixture can ask. */
export const CLIENT_CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {} };

/**
 * Start a 2025-11-25 server with `options` and connect a v1 `Client` to it. `prepare` runs before the
 * handshake, so request handlers (elicitation, notifications) are in place when the first task starts.
 */
export async function connectLegacy(
  kind: LegacyTransportKind,
  options: Omit<TaskServerOptions, "era"> = {},
  prepare: (client: Client) => void = () => {},
): Promise<LegacyConnection> {
  const client = new Client(
    { name: "v1-test-client", version: "1.0.0" },
    { capabilities: CLIENT_CAPABILITIES },
  );
  prepare(client);
  let server: TaskServer;
  if (kind === "http") {
    const http = await startTaskServer({ ...options, era: "2025-11-25" });
    server = http;
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  } else {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    server = await startStdioTaskServer({
      ...options,
      era: "2025-11-25",
      stdin: toServer,
      stdout: fromServer,
    });
    await client.connect(new PipeClientTransport(toServer, fromServer));
  }
  return {
    server,
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
