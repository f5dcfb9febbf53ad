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

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.end();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Starts `redis-server` with `extra` arguments on a free port; resolves once it accepts connections. */
async function startNode(extra: string[] = [], onPort?: number): Promise<RedisServer & { port: number }> {
  const port = onPort ?? (await freePort());
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...extra];
  const proc: ChildProcess = spawn("redis-server", args, { stdio: "ignore" });
  let failed: Error | undefined;
  proc.once("error", (error) => (failed = error));
  const exited = new Promise<void>((resolve) => proc.once("close", () => resolve()));
  for (let tries = 0; !(await accepts(port)); tries++) {
    if (failed !== undefined) throw new Error(`redis-server did not start: ${failed.message}`);
    if (tries > 200 || proc.exitCode !== null) throw new Error("redis-server did not start");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
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
  const extra = ["--appendonly", "yes", "--appendfsync", "always", "--dir", dir];
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
      const bus = await freePort();
      buses.push(bus);
      started.push(
        await startNode([
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
        ]),
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
