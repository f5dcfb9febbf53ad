/**
 * The MCP SDK `Transport` shape over the in-process fake server: the only door either library has to it.
 * A request is stamped with its arrival time when the library sends it, and answered on `setImmediate`, so
 * every round trip costs one turn of the event loop, as it would for a message from a socket.
 *
 * With `jsonWire` every message goes through `JSON.parse(JSON.stringify(…))` in both directions, so the
 * figures also hold when messages are serialized.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";

type Message = Record<string, unknown>;

/** What the transport talks to: `FakeTasksServer`, or `PushTasksServer`, which also writes unasked. */
export interface InProcessServer {
  handle(message: Message, arrivedAt: number): Message | undefined;
  /** Gives the server a way to send notifications; each one arrives one event-loop turn later. */
  connect?(push: (message: Message) => void): void;
}

export class FakeTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private open = false;

  constructor(
    private readonly server: InProcessServer,
    private readonly jsonWire: boolean,
  ) {}

  async start(): Promise<void> {
    this.open = true;
    this.server.connect?.((message) => {
      const copy = this.jsonWire ? roundTrip(message) : message;
      setImmediate(() => {
        if (this.open) this.onmessage?.(copy as JSONRPCMessage);
      });
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.open) throw new Error("FakeTransport: send() while the transport is not open");
    const arrivedAt = performance.now();
    const request = this.jsonWire ? roundTrip(message) : (message as Message);
    setImmediate(() => this.deliver(request, arrivedAt));
  }

  async close(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    this.onclose?.();
  }

  setProtocolVersion(): void {
    // The fake server speaks exactly one revision; nothing to switch.
  }

  private deliver(request: Message, arrivedAt: number): void {
    const reply = this.server.handle(request, arrivedAt);
    if (reply === undefined || !this.open) return;
    const answer = (this.jsonWire ? roundTrip(reply) : reply) as JSONRPCMessage;
    this.onmessage?.(answer);
  }
}

function roundTrip(message: unknown): Message {
  return JSON.parse(JSON.stringify(message)) as Message;
}
