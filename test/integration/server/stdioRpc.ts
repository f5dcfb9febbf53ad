/**
 * Raw JSON-RPC over stdio for the server tests: spawns `bin/mcp-tasks-server.js --stdio` with node,
 * writes one JSON message per line, and matches the lines that come back by id.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { PostOptions, RpcReply } from "./rawRpc.js";
import { envelope } from "./rawRpc.js";

const BIN = fileURLToPath(new URL("../../../bin/mcp-tasks-server.js", import.meta.url));

type Message = Record<string, unknown>;

export class StdioSession {
  private readonly waiting = new Map<unknown, (reply: Message) => void>();
  private readonly notifications: Message[] = [];
  private notificationWaiter: (() => void) | undefined;
  private nextId = 1;
  readonly exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on("line", (line) => this.receive(JSON.parse(line) as Message));
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  static start(): StdioSession {
    return new StdioSession(spawn(process.execPath, [BIN, "--stdio"], { stdio: ["pipe", "pipe", "pipe"] }));
  }

  /** Write one message as a line. */
  send(message: Message): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Send a request with the 2026-07-28 envelope and wait for its response. */
  request(method: string, params: Message = {}, options: PostOptions = {}): Promise<RpcReply> {
    const id = options.id ?? `stdio-${this.nextId++}`;
    const answered = new Promise<Message>((resolve) => this.waiting.set(id, resolve));
    this.send({ jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope(options) } });
    return answered.then((reply) => ({ status: 0, ...reply }) as RpcReply);
  }

  /** The next notification (the server writes them in order). */
  async nextNotification(): Promise<Message> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const queued = this.notifications.shift();
      if (queued !== undefined) return queued;
      await new Promise<void>((resolve) => (this.notificationWaiter = resolve));
    }
    throw new Error("no notification arrived");
  }

  /** Notifications received but not yet taken. */
  pendingNotifications(): Message[] {
    return [...this.notifications];
  }

  /** End stdin (the server exits on its own) and wait for the exit code. */
  async close(): Promise<number | null> {
    this.child.stdin.end();
    const timeout = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timeout);
    }
  }

  private receive(message: Message): void {
    const resolve = "id" in message && !("method" in message) ? this.waiting.get(message["id"]) : undefined;
    if (resolve !== undefined) {
      this.waiting.delete(message["id"]);
      resolve(message);
      return;
    }
    this.notifications.push(message);
    this.notificationWaiter?.();
    this.notificationWaiter = undefined;
  }
}
