/**
 * Throwaway Redis servers for the Redis store tests, on free loopback ports, without persistence: one node
 * (`startRedis`), or a 3-node Redis Cluster (`startRedisCluster`) built from Node with CLUSTER ADDSLOTSRANGE and
 * CLUSTER MEET, so no `redis-cli` is needed. A missing `redis-server` fails loudly.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "redis";
import { freePort } from "../../fixtures/free-port.js";

export interface RedisServer {
  url: string;
  /** The `redis-server` process (the fleet test freezes it with SIGSTOP). */
  pid: number | undefined;
  stop(): Promise<void>;
}

export interface RedisCluster {
  /** Every node's `redis://127.0.0.1:port`; give any of them to `createCluster({ rootNodes })`. */
  urls: string[];
  /** Every node's `redis-server` process, in the order of `urls`. */
  pids: Array<number | undefined>;
  stop(): Promise<void>;
}

/** Whether a Redis answers PING on `port` (not merely something listening: another process may hold the port). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (answer.includes("\r\n")) done(answer.startsWith("+PONG"));
    });
    socket.once("error", () => done(false));
    socket.once("close", () => done(false));
  });
}

/**
 * Starts `redis-server` on a free port (or `onPort`), with the arguments `extra` gives for it; resolves once it
 * accepts connections. A port is free when asked for, not when Redis binds it: another process of the suite may
 * take it (or the cluster bus port `extra` picked) in between, and Redis then exits at once. On ports it picked
 * itself it starts again on new ones, at most three times; the error says what Redis printed last.
 */
async function startNode(
  extra: () => Promise<string[]> = async () => [],
  onPort?: number,
): Promise<RedisServer & { port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = onPort ?? (await freePort());
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
    const proc: ChildProcess = spawn("redis-server", [...args, ...(await extra())], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let printed = "";
    const keep = (chunk: Buffer) => (printed = (printed + chunk.toString("utf8")).slice(-2000));
    proc.stdout?.on("data", keep);
    proc.stderr?.on("data", keep);
    let failed: Error | undefined;
    proc.once("error", (error) => (failed = error));
    const exited = new Promise<void>((resolve) => proc.once("close", () => resolve()));
    let accepted = false;
    for (let tries = 0; tries <= 200 && proc.exitCode === null && failed === undefined; tries++) {
      if ((accepted = await accepts(port))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (failed !== undefined) throw new Error(`redis-server did not start: ${failed.message}`);
    if (accepted && proc.exitCode === null) {
      return {
        port,
        url: `redis://127.0.0.1:${port}`,
        pid: proc.pid,
        stop: async () => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
          await exited;
        },
      };
    }
    if (proc.exitCode === null) proc.kill("SIGKILL");
    await exited;
    if (onPort !== undefined || attempt >= 3) {
      throw new Error(`redis-server did not start (attempt ${attempt}, port ${port}): ${printed.trim()}`);
    }
  }
}

export function startRedis(): Promise<RedisServer> {
  return startNode();
}

export interface RestartableRedis extends RedisServer {
  /**
   * SIGKILLs the server and, `downMs` later, starts it again on the same port from its append-only file (every write
   * fsynced).
   */
  restart(downMs?: number): Promise<void>;
}

/** One node that keeps its data across `restart()` (an append-only file in a private temporary directory). */
export async function startRestartableRedis(): Promise<RestartableRedis> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-redis-"));
  const extra = async () => ["--appendonly", "yes", "--appendfsync", "always", "--dir", dir];
  let node = await startNode(extra);
  return {
    url: node.url,
    get pid() {
      return node.pid;
    },
    restart: async (downMs = 0) => {
      if (node.pid !== undefined) process.kill(node.pid, "SIGKILL");
      await node.stop();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      node = await startNode(extra, node.port);
    },
    stop: async () => {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const SLOTS = 16384;

/** Three masters on loopback, every slot assigned, `cluster_state:ok` on each; a few seconds. */
export async function startRedisCluster(nodes = 3): Promise<RedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-redis-cluster-"));
  const started: Array<RedisServer & { port: number }> = [];
  const buses: number[] = [];
  const stop = async () => {
    await Promise.all(started.map((node) => node.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < nodes; index++) {
      started.push(
        await startNode(async () => {
          const bus = await freePort();
          buses[index] = bus;
          return [
            "--cluster-enabled",
            "yes",
            "--cluster-port",
            String(bus),
            "--cluster-config-file",
            join(dir, `nodes-${index}.conf`),
            "--cluster-node-timeout",
            "2000",
            "--dir",
            dir,
          ];
        }),
      );
    }
    const clients = await Promise.all(started.map((node) => createClient({ url: node.url }).connect()));
    try {
      await Promise.all(
        clients.map((client, index) => {
          const first = Math.floor((SLOTS * index) / nodes);
          const last = Math.floor((SLOTS * (index + 1)) / nodes) - 1;
          return client.sendCommand(["CLUSTER", "ADDSLOTSRANGE", String(first), String(last)]);
        }),
      );
      const [head] = clients;
      for (let index = 1; index < nodes; index++) {
        const node = started[index] as { port: number };
        await head?.sendCommand(["CLUSTER", "MEET", "127.0.0.1", String(node.port), String(buses[index])]);
      }
      for (let tries = 0; ; tries++) {
        const infos = await Promise.all(clients.map((client) => client.sendCommand(["CLUSTER", "INFO"])));
        const ready = infos.every(
          (info) =>
            String(info).includes("cluster_state:ok") &&
            String(info).includes(`cluster_known_nodes:${nodes}`),
        );
        if (ready) break;
        if (tries > 300) throw new Error("the Redis Cluster did not come up");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { urls: started.map((node) => node.url), pids: started.map((node) => node.pid), stop };
}
