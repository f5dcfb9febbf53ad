/**
 * The runtime smoke scenario, plain JavaScript so that every runtime runs it as it is: Node 20, 22 and 24, Bun
 * and Deno through `smoke-cli.mjs`, workerd through `smoke-worker.mjs`, Chromium through the browser test. It
 * imports the packed package by name, as a user would, and reports what it saw as one JSON-able object; the
 * tests compare that with literals and read the server's request log.
 */
import { OutputSchemaError, TaskCancelledError, TaskClient } from "mcp-tasks";

/** The reference server's tools this scenario calls (the tests define them with these steps). */
export const SMOKE_TOOLS = {
  report: "build_report",
  endless: "endless_job",
  resumable: "resumable_job",
  forecast: "forecast",
  brokenForecast: "broken_forecast",
};

/**
 * Runs the scenario against the reference server at `url`: one task followed to completion through its status
 * updates, one cancelled, and, when `openStore` is given (runtimes whose file system the file store supports),
 * one task created by a client that then closes, resumed from the store by a second client. Two results of tools
 * with an outputSchema are checked (`validateOutput`): one matches, one does not. A bundle made into one file (a
 * Worker, a page) passes `validateOutput`, the validator from `mcp-tasks/json-schema`; elsewhere the client imports
 * it itself, and `bundledCheck` reports what a bundle that passes none gets.
 *
 * @param {{ url: string; openStore?: () => import("mcp-tasks/store").TaskStore;
 *   validateOutput?: import("mcp-tasks/json-schema").JsonSchemaValidator; bundledCheck?: boolean }} options
 */
export async function runSmoke({ url, openStore, validateOutput, bundledCheck }) {
  const polling = { defaultIntervalMs: 20, minIntervalMs: 10, jitter: 0 };
  const client = await TaskClient.connect(url, { polling, ...(validateOutput && { validateOutput }) });
  const report = { era: client.server.era };

  const forecast = await client.callTool(SMOKE_TOOLS.forecast, {});
  const broken = await client.callTool(SMOKE_TOOLS.brokenForecast, {}).outcome();
  report.validated = {
    structured: forecast.structuredContent,
    broken: broken.kind,
    typed: broken.error instanceof OutputSchemaError,
    problem: broken.error?.problems?.[0],
  };
  if (bundledCheck) {
    const unchecked = await TaskClient.connect(url, { polling });
    const outcome = await unchecked.callTool(SMOKE_TOOLS.forecast, {}).outcome();
    report.bundledCheck = {
      kind: outcome.kind,
      typed: outcome.error instanceof OutputSchemaError,
      advice: /mcp-tasks\/json-schema/.test(outcome.error?.message ?? ""),
      kept: outcome.error?.result?.structuredContent,
    };
    await unchecked.close();
  }

  const handle = client.callTool(SMOKE_TOOLS.report, {});
  const updates = [];
  for await (const update of handle) updates.push(`${update.status}:${update.statusMessage ?? ""}`);
  const completed = await handle.outcome();
  report.completed = { kind: completed.kind, text: completed.result?.content?.[0]?.text, updates };

  const endless = client.callTool(SMOKE_TOOLS.endless, {});
  const cancelledTaskId = await endless.created;
  await endless.cancel();
  const cancelled = await endless.outcome();
  report.cancelled = {
    taskId: cancelledTaskId,
    kind: cancelled.kind,
    confirmed: cancelled.error?.confirmed,
    typed: cancelled.error instanceof TaskCancelledError,
  };
  await client.close();

  if (openStore !== undefined) {
    const first = await TaskClient.connect(url, { polling, store: openStore() });
    const taskId = await first.callTool(SMOKE_TOOLS.resumable, {}).created;
    await first.close(); // the task goes on on the server; its ref stays in the store
    const second = await TaskClient.connect(url, { polling, store: openStore() });
    const handles = await second.resume();
    const outcomes = await Promise.all(handles.map((resumed) => resumed.outcome()));
    report.resumed = {
      handles: handles.length,
      sameTask: handles[0]?.taskId === taskId,
      kind: outcomes[0]?.kind,
      text: outcomes[0]?.result?.content?.[0]?.text,
    };
    await second.close();
  }
  return report;
}
