/**
 * Runs a Worker in workerd, Cloudflare Workers' runtime, as `wrangler dev` would but without wrangler: the
 * script is bundled by esbuild with the conditions wrangler uses (`workerd`, `worker`, `browser`), and workerd
 * serves it on a free loopback port from a Cap'n Proto config whose outbound network allows loopback only (the
 * reference server). Workers resolve no packages at run time, hence the bundle.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve as resolvePath } from "node:path";
import { build } from "esbuild";
import { freePort } from "../fixtures/free-port.js";
import { workerdBinary } from "./runtimes.js";

export interface RunningWorker {
  url: string;
  /** What workerd printed so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
  /** SIGKILL: workerd ends without a word, as a machine that loses power or an evicted isolate would. */
  kill(): Promise<void>;
}

/**
 * Bundles `entry` (a module in `dir`, or an absolute path) the way wrangler does, into `dir/worker.js`, with
 * `alias` mapping package names to files. Returns the bundle's inputs.
 */
export async function bundleWorker(
  dir: string,
  entry: string,
  alias: Record<string, string> = {},
): Promise<string[]> {
  const result = await build({
    entryPoints: [resolvePath(dir, entry)],
    alias,
    outfile: join(dir, "worker.js"),
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    target: "es2022",
    metafile: true,
    logLevel: "silent",
    tsconfigRaw: "{}",
    absWorkingDir: dir,
  });
  return Object.keys(result.metafile.inputs);
}

const config = (port: number) => `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .smokeWorker),
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);

const smokeWorker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "2025-09-01",
  globalOutbound = "loopback",
);
`;

/**
 * Starts workerd serving `dir/worker.js` (with `configFor`, the Cap'n Proto config it returns for the port);
 * resolves once it accepts requests (at most 30 s).
 */
export async function startWorker(
  dir: string,
  configFor: (port: number) => string = config,
): Promise<RunningWorker> {
  const port = await freePort();
  const file = `config-${port}.capnp`;
  writeFileSync(join(dir, file), configFor(port));
  let output = "";
  const child: ChildProcess = spawn(workerdBinary(), ["serve", file], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`workerd exited (${child.exitCode ?? child.signalCode}) before serving: ${output}`);
    }
    const ready = await fetch(`${url}/__ready`, { method: "HEAD" }).then(
      () => true,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`workerd did not serve ${url} within 30 s: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}
