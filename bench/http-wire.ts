/**
 * The HTTP benchmark: a client process following tasks of a server in another process over loopback HTTP
 * (bench/scale-out-server.ts), its own CPU per `tasks/get` side by side with a raw loop over an undici `Pool` and a
 * raw loop over the global `fetch`, in the same run. Each run is a fresh server and a fresh client process
 * (bench/http-wire-client.ts), one at a time; the kinds take turns within a round.
 *
 * Run: `node --import tsx bench/http-wire.ts [tasks,...] [rounds] [kinds]`, e.g. `1000,10000 3
 * undici,ours,fetch,ours-fetch`; `npm run bench -- --http-only` runs it with those defaults. Prints a Markdown
 * table and `HTTP_WIRE_SUMMARY {json}`. Set `MCP_TASKS_BENCH_RUNTIME=bun` to run the clients on Bun (`bunx`-free:
 * node_modules/.bin/bun).
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const POLLS = 20;
const INTERVAL_MS = 100;

const taskCounts = (process.argv[2] ?? "1000,10000").split(",").map(Number);
const rounds = Number(process.argv[3] ?? 3);
const kinds = (process.argv[4] ?? "undici,ours,fetch,ours-fetch").split(",");
const runtime = process.env.MCP_TASKS_BENCH_RUNTIME ?? "node";

interface Figures {
  kind: string;
  tasks: number;
  polls: number;
  cpuUs: number;
  wallMs: number;
  cpuPerPollUs: number;
  pollsPerSecond: number;
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  marker: string,
): Promise<{ line: string; child: ReturnType<typeof spawn> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "inherit"] });
    let buffered = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split("\n").find((candidate) => candidate.startsWith(marker));
      if (line !== undefined) resolve({ line: line.slice(marker.length).trim(), child });
    });
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code} before "${marker}"`)));
  });
}

async function once(kind: string, tasks: number): Promise<Figures> {
  const server = await run(
    process.execPath,
    [
      "--import",
      "tsx",
      join(BENCH_DIR, "scale-out-server.ts"),
      String(tasks),
      String(INTERVAL_MS),
      String(POLLS),
    ],
    process.env,
    "listening",
  );
  try {
    const env = { ...process.env };
    if (kind === "ours-fetch") env.MCP_TASKS_HTTP = "fetch";
    else delete env.MCP_TASKS_HTTP;
    const client = join(BENCH_DIR, "http-wire-client.ts");
    const args = [kind, server.line, String(tasks), String(POLLS), String(INTERVAL_MS)];
    const [command, prefix] =
      runtime === "bun"
        ? [join(BENCH_DIR, "..", "node_modules", ".bin", "bun"), [client]]
        : [process.execPath, ["--import", "tsx", client]];
    const { line } = await run(command, [...prefix, ...args], env, "HTTP_WIRE_RESULT");
    return JSON.parse(line) as Figures;
  } finally {
    server.child.kill("SIGTERM");
  }
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const results: (Figures & { round: number })[] = [];
for (let round = 0; round < rounds; round++) {
  for (const tasks of taskCounts) {
    const order = round % 2 === 0 ? kinds : [...kinds].reverse();
    for (const kind of order) {
      const figures = await once(kind, tasks);
      console.error(`round ${round + 1}: ${JSON.stringify(figures)}`);
      results.push({ ...figures, round: round + 1 });
    }
  }
}

/**
 * Each round's CPU per poll over the raw undici loop's in the same round: the machine's load drifts between
 * rounds, and a pair run minutes apart shares more of it than two medians do.
 */
function pairedRatios(kind: string, tasks: number): number[] {
  const ratios: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const at = (k: string) => results.find((r) => r.round === round && r.tasks === tasks && r.kind === k);
    const mine = at(kind);
    const floor = at("undici");
    if (mine !== undefined && floor !== undefined) ratios.push(mine.cpuPerPollUs / floor.cpuPerPollUs);
  }
  return ratios;
}

const rows: string[] = [];
for (const tasks of taskCounts) {
  const floor = results.filter((r) => r.tasks === tasks && r.kind === "undici").map((r) => r.cpuPerPollUs);
  for (const kind of kinds) {
    const mine = results.filter((r) => r.tasks === tasks && r.kind === kind);
    const cpu = mine.map((r) => r.cpuPerPollUs);
    const ratio = floor.length > 0 ? (median(cpu) / median(floor)).toFixed(2) + "×" : "–";
    const pairs = pairedRatios(kind, tasks);
    const paired =
      pairs.length === 0
        ? "–"
        : `${median(pairs).toFixed(2)}× (${Math.min(...pairs).toFixed(2)}–${Math.max(...pairs).toFixed(2)})`;
    const range = `${Math.min(...cpu)}–${Math.max(...cpu)}`;
    const rate = median(mine.map((r) => r.pollsPerSecond));
    const wall = median(mine.map((r) => r.wallMs));
    rows.push(
      `| ${tasks.toLocaleString("en-US")} | ${kind} | ${median(cpu)} µs (${range}) | ${ratio} | ${paired} | ${rate.toLocaleString("en-US")} | ${(wall / 1000).toFixed(1)} s |`,
    );
  }
}
console.log(
  `\n${runtime === "bun" ? "Bun" : `Node ${process.version}`}: ${POLLS} intervals of ${INTERVAL_MS} ms, ${rounds} round(s), median (min–max)\n\n` +
    "| tasks | client | CPU per `tasks/get` | × raw undici | × raw undici, per round | polls/s | wall time |\n" +
    "| ---: | --- | ---: | ---: | ---: | ---: | ---: |\n" +
    rows.join("\n"),
);
console.log(`HTTP_WIRE_SUMMARY ${JSON.stringify(results)}`);
