/**
 * The host scenario: 10 servers × N tasks each (1,000 in the full run) followed by one `TaskHost`, beside the
 * same load followed by 10 separate `TaskClient`s, one per server. Each server is the benchmark's fake tasks
 * server behind its in-process transport (bench/fake-server.ts), advertising `pollIntervalMs` 500 with 10
 * working answers per task. Shows what the host's one fair scheduler and its routing cost against clients on
 * their own: CPU per `tasks/get` and live heap per task (the target: within 10 %).
 *
 * `node --import tsx bench/host.ts <tasksPerServer> <rounds>` runs every round, the two modes taking turns (the
 * order flips every round), each in a fresh `node --expose-gc` process (`--child <mode> <tasksPerServer>`), and
 * prints a table and one `HOST_RESULT <json>` line. It measures the build (`npm run build` first): the host's
 * entry imports the core by the package's name, so both modes load `dist/`.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TaskClient, type CallToolResult, type TaskClientOptions } from "mcp-tasks";
import { TaskHost } from "mcp-tasks/host";
import { BENCH_TOOL, FakeTasksServer } from "./fake-server.js";
import { FakeTransport } from "./fake-transport.js";
import { HeapMarks } from "./heap-marks.js";
import { LoopDelay } from "./loop-delay.js";
import { spread, type Spread } from "./stats.js";

const SERVERS = 10;
const POLL_INTERVAL_MS = 500;
const POLLS_UNTIL_DONE = 10;
/** Polling only: the fake server serves no listen, and both modes are measured on the same path. */
const OPTIONS: TaskClientOptions = { notifications: "off" };

type Mode = "host" | "clients";

interface HostRun {
  mode: Mode;
  ok: boolean;
  failure?: string;
  polls: number;
  wallMs: number;
  cpuUsPerPoll: number;
  heapPerTaskBytes: number;
}

/** Starts one mode over `servers` and returns how to call the `n`-th task of server `i`, and how to close. */
async function connect(
  mode: Mode,
  transports: FakeTransport[],
): Promise<{ call(i: number, n: number): PromiseLike<CallToolResult>; close(): Promise<void> }> {
  if (mode === "host") {
    const servers = Object.fromEntries(transports.map((transport, i) => [`s${i}`, transport]));
    const host = await TaskHost.connect({ servers, ...OPTIONS, reconnect: false });
    return { call: (i, n) => host.callTool(`s${i}__${BENCH_TOOL}`, { n }), close: () => host.close() };
  }
  const clients = await Promise.all(transports.map((transport) => TaskClient.connect(transport, OPTIONS)));
  return {
    call: (i, n) => (clients[i] as TaskClient).callTool(BENCH_TOOL, { n }),
    close: async () => {
      await Promise.all(clients.map((client) => client.close()));
    },
  };
}

/** One run of one mode, in this process (started with --expose-gc). */
async function measure(mode: Mode, tasksPerServer: number): Promise<HostRun> {
  const config = {
    tasks: tasksPerServer,
    pollsUntilDone: POLLS_UNTIL_DONE,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
  const servers = Array.from({ length: SERVERS }, () => new FakeTasksServer(config));
  const connected = await connect(
    mode,
    servers.map((server) => new FakeTransport(server, false)),
  );
  const tasks = SERVERS * tasksPerServer;
  const loopDelay = new LoopDelay(5);
  // Mid-run: every task exists and is being polled.
  const marks = new HeapMarks([Math.floor((tasks * POLLS_UNTIL_DONE) / 2)], loopDelay);
  let polls = 0;
  for (const server of servers) server.onPoll = () => marks.onPoll(++polls);

  let failures = 0;
  let firstFailure: string | undefined;
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const calls: Promise<unknown>[] = [];
  for (let n = 0; n < tasksPerServer; n++) {
    for (let i = 0; i < SERVERS; i++) {
      calls.push(
        Promise.resolve(connected.call(i, n)).catch((error: unknown) => {
          failures++;
          firstFailure ??= String(error);
        }),
      );
    }
  }
  await Promise.all(calls);
  const wallMs = performance.now() - started - marks.pausedWithin(started, performance.now());
  const cpu = process.cpuUsage(cpuStart);
  await connected.close();
  const ok = failures === 0 && marks.allReached;
  return {
    mode,
    ok,
    ...(ok ? {} : { failure: firstFailure ?? "a heap mark was not reached" }),
    polls,
    wallMs,
    cpuUsPerPoll: (cpu.user + cpu.system - marks.cpuUs) / Math.max(1, polls),
    heapPerTaskBytes: (marks.heapAboveBaseline[0] ?? Number.NaN) / tasks,
  };
}

/** Runs one mode in a fresh process. */
function runChild(mode: Mode, tasksPerServer: number): Promise<HostRun> {
  const script = fileURLToPath(import.meta.url);
  const args = ["--expose-gc", "--import", "tsx", script, "--child", mode, String(tasksPerServer)];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => {
      const line = stdout.split("\n").find((text) => text.startsWith("HOST_RUN "));
      if (line) return resolve(JSON.parse(line.slice("HOST_RUN ".length)) as HostRun);
      const failure = `exit ${String(code)}: ${stderr.trim().split("\n").slice(-3).join(" / ")}`;
      resolve({ mode, ok: false, failure, polls: 0, wallMs: 0, cpuUsPerPoll: 0, heapPerTaskBytes: 0 });
    });
  });
}

function row(title: string, host: Spread, clients: Spread, digits: number, unit: string): string {
  const show = (value: Spread) =>
    `${value.median.toFixed(digits)} ${unit} (${value.min.toFixed(digits)}–${value.max.toFixed(digits)})`;
  const ratio = ((host.median / clients.median - 1) * 100).toFixed(1);
  return `| ${title} | ${show(host)} | ${show(clients)} | ${Number(ratio) > 0 ? "+" : ""}${ratio} % |`;
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === "--child") {
    const run = await measure(argv[1] as Mode, Number(argv[2]));
    console.log(`HOST_RUN ${JSON.stringify(run)}`);
    return;
  }
  const tasksPerServer = Number(argv[0] ?? 1000);
  const rounds = Number(argv[1] ?? 3);
  const runs: Record<Mode, HostRun[]> = { host: [], clients: [] };
  for (let round = 1; round <= rounds; round++) {
    const order: Mode[] = round % 2 === 1 ? ["host", "clients"] : ["clients", "host"];
    for (const mode of order) {
      const run = await runChild(mode, tasksPerServer);
      runs[mode].push(run);
      const status = run.ok ? "ok" : `FAILED (${run.failure ?? ""})`;
      process.stderr.write(`[host round ${round}] ${mode}: ${(run.wallMs / 1000).toFixed(1)} s ${status}\n`);
    }
  }
  const ok = (mode: Mode) => runs[mode].filter((run) => run.ok);
  const figure = (mode: Mode, key: "cpuUsPerPoll" | "heapPerTaskBytes") =>
    spread(ok(mode).map((run) => run[key]));
  const summary =
    ok("host").length > 0 && ok("clients").length > 0
      ? {
          cpuUsPerPoll: { host: figure("host", "cpuUsPerPoll"), clients: figure("clients", "cpuUsPerPoll") },
          heapPerTaskBytes: {
            host: figure("host", "heapPerTaskBytes"),
            clients: figure("clients", "heapPerTaskBytes"),
          },
        }
      : undefined;
  const tasks = SERVERS * tasksPerServer;
  console.log(
    `${SERVERS} servers × ${tasksPerServer} tasks (${tasks} in all), pollIntervalMs ${POLL_INTERVAL_MS}, ` +
      `${POLLS_UNTIL_DONE} working polls each; ${rounds} round(s), median (min–max).\n`,
  );
  if (summary === undefined) console.log("No successful run of one of the modes.");
  else {
    console.log("| Figure | One `TaskHost` | 10 `TaskClient`s | Host vs clients |");
    console.log("| --- | --- | --- | --- |");
    console.log(row("CPU per poll", summary.cpuUsPerPoll.host, summary.cpuUsPerPoll.clients, 1, "µs"));
    console.log(
      row("Live heap per task", summary.heapPerTaskBytes.host, summary.heapPerTaskBytes.clients, 0, "B"),
    );
  }
  console.log(`\nHOST_RESULT ${JSON.stringify({ tasksPerServer, rounds, runs, summary })}`);
}

await main(process.argv.slice(2));
