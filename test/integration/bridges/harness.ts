/**
 * What the bridge tests share: the reference server over Streamable HTTP on 127.0.0.1 with the fixture tools at a
 * hundredth of their timing plus two scripted ones, a client that polls fast, and readers of the request log.
 */
import { TaskClient, type TaskClientOptions } from "mcp-tasks";
import {
  defineTool,
  fixtureTools,
  startTaskServer,
  step,
  structuredResult,
  textResult,
  type HttpTaskServer,
} from "mcp-tasks/testing";

/** The statuses `build_report` reports, in order, before it completes with {@link REPORT}. */
export const REPORT_STEPS = ["Fetching sales data", "Crunching the numbers", "Rendering charts"];
export const REPORT = "Report ready: revenue up 12% quarter on quarter";

/** `forecast` returns this structure; `broken_forecast`, with the same outputSchema, a number where text belongs. */
export const FORECAST = { city: "Oslo", highC: 21 };
const FORECAST_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, highC: { type: "number" } },
  required: ["city", "highC"],
};

export function bridgeServer(): Promise<HttpTaskServer> {
  return startTaskServer({
    tools: [
      ...fixtureTools({ timeScale: 0.01 }),
      defineTool({
        name: "build_report",
        description: "Builds the quarterly report.",
        inputSchema: { properties: { quarter: { type: "string" } }, required: ["quarter"] },
        task: "required",
        pollIntervalMs: 10,
        steps: [...REPORT_STEPS.map((message) => step.working(message)), step.complete(textResult(REPORT))],
      }),
      defineTool({
        name: "endless_job",
        description: "Works until cancelled.",
        task: "required",
        pollIntervalMs: 10,
        steps: [step.working("Working"), step.stall()],
      }),
      defineTool({
        name: "forecast",
        description: "Tomorrow's forecast, as a structure.",
        outputSchema: FORECAST_SCHEMA,
        task: "required",
        pollIntervalMs: 10,
        steps: [step.complete(structuredResult(FORECAST))],
      }),
      defineTool({
        name: "broken_forecast",
        description: "A forecast that does not match its own outputSchema.",
        outputSchema: FORECAST_SCHEMA,
        task: "never",
        steps: [step.complete(structuredResult({ city: 47, highC: 21 }))],
      }),
      defineTool({
        name: "chart",
        description: "Draws a chart: a caption and a PNG.",
        task: "never",
        steps: [
          step.complete({
            content: [
              { type: "text", text: "Revenue by quarter" },
              { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
            ],
          }),
        ],
      }),
    ],
  });
}

export function connect(server: HttpTaskServer, options: TaskClientOptions = {}): Promise<TaskClient> {
  return TaskClient.connect(server.url, { polling: { minIntervalMs: 5 }, ...options });
}

/** The ids of every task the server created (to prove none of them reached the model). */
export function taskIds(server: HttpTaskServer): string[] {
  return server.tasks.ids();
}
