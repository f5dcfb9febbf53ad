/**
 * `npm run demo`: the whole story in one run. Starts the reference tasks server on 127.0.0.1, runs a multi-step
 * task through `TaskClient` with a live status line, cancels a second task with an AbortSignal, and lets a third
 * survive a client restart: stored by a `fileStore`, picked up by a new client's `resume()`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TaskClient, type TaskUpdate } from "mcp-tasks";
import { fileStore } from "mcp-tasks/store";
import { defineTool, fixtureTools, startTaskServer, step, textResult } from "mcp-tasks/testing";

const buildReport = defineTool({
  name: "build_report",
  description: "A report in four stages, one every 600 ms.",
  task: "required",
  advance: { everyMs: 600 },
  pollIntervalMs: 150,
  statusMessage: "Queued",
  steps: [
    step.message("Fetching sales data"),
    step.message("Crunching the numbers"),
    step.message("Rendering charts"),
    step.complete(textResult("Report ready: revenue up 12% quarter on quarter"), { statusMessage: "Done" }),
  ],
});

const live = process.stdout.isTTY;

function show(label: string, update: TaskUpdate): void {
  const line = `${label}  ${update.status.padEnd(14)} ${update.statusMessage ?? ""}`;
  // On a terminal, one line that keeps changing; in a log, one line per update.
  if (live) process.stdout.write(`\r\x1b[2K${line}`);
  else console.log(line);
}

const server = await startTaskServer({ tools: [buildReport, ...fixtureTools()] });
console.log(`Reference tasks server listening on ${server.url}\n`);
const client = await TaskClient.connect(server.url);

try {
  // 1. A multi-step task, its status streamed as it changes.
  console.log("▶ build_report");
  const report = client.callTool("build_report", { quarter: "Q3" });
  for await (const update of report) show("  build_report", update);
  if (live) process.stdout.write("\n");
  const result = await report;
  const text = result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`));
  console.log(`  outcome: completed — ${text.join(" ")}\n`);

  // 2. A long task given up on with an AbortSignal: the client sends tasks/cancel and reports what the server says.
  console.log("▶ slow_compute (aborted after 1 s)");
  const backfill = client.callTool(
    "slow_compute",
    { seconds: 30, label: "backfill" },
    { signal: AbortSignal.timeout(1_000) },
  );
  backfill.on("update", (update) => show("  slow_compute", update));
  const outcome = await backfill.outcome();
  if (live) process.stdout.write("\n");
  console.log(`  outcome: ${outcome.kind}${"error" in outcome ? ` — ${outcome.error.message}` : ""}\n`);

  // 3. A task outlives its client: the store holds its ref, and a new client resumes it.
  console.log("▶ build_report across a client restart");
  const dir = mkdtempSync(join(tmpdir(), "mcp-tasks-demo-"));
  try {
    const first = await TaskClient.connect(server.url, { store: fileStore(dir) });
    const started = first.callTool("build_report", { quarter: "Q4" });
    const ref = await started.ref; // durably stored before the handle reports it
    console.log(`  first client started task ${ref?.taskId.slice(0, 8)}… and stops`);
    await first.close();

    const second = await TaskClient.connect(server.url, { store: fileStore(dir) });
    const [resumed] = await second.resume();
    console.log(`  second client resumed ${(await resumed?.ref)?.taskId.slice(0, 8)}… from the store`);
    const again = await resumed?.outcome();
    const done = again?.kind === "completed" ? again.result.content : [];
    console.log(
      `  outcome: ${again?.kind} — ${done.map((block) => (block.type === "text" ? block.text : "")).join(" ")}`,
    );
    await second.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  await client.close();
  await server.close();
}
