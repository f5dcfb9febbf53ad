/** A throwaway `redis-server` on a free loopback port, without persistence, for the Redis store tests. */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, connect } from "node:net";

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
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

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
  const proc: ChildProcess = spawn("redis-server", args, { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  for (let tries = 0; !(await accepts(port)); tries++) {
    if (tries > 200 || proc.exitCode !== null) throw new Error("redis-server did not start");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      proc.kill("SIGTERM");
      await exited;
    },
  };
}
