/**
 * The client's instruments: the convention's `mcp.client.operation.duration`, and the task-level ones the
 * conventions do not cover (live tasks, task duration by outcome, polls, pushed updates, retries).
 */
import type * as Otel from "@opentelemetry/api";
import { MetricName, OPERATION_BUCKETS, TASK_BUCKETS } from "./semconv.js";

export interface ClientInstruments {
  operationDuration: Otel.Histogram;
  activeTasks: Otel.UpDownCounter;
  taskDuration: Otel.Histogram;
  polls: Otel.Counter;
  pushedUpdates: Otel.Counter;
  retries: Otel.Counter;
}

export function clientInstruments(meter: Otel.Meter): ClientInstruments {
  return {
    operationDuration: meter.createHistogram(MetricName.operationDuration, {
      description:
        "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.",
      unit: "s",
      advice: { explicitBucketBoundaries: OPERATION_BUCKETS },
    }),
    activeTasks: meter.createUpDownCounter(MetricName.activeTasks, {
      description: "Task handles that have not ended yet (calls in flight included).",
      unit: "{task}",
    }),
    taskDuration: meter.createHistogram(MetricName.taskDuration, {
      description: "From the call (or the resume) to the end of the handle, by outcome.",
      unit: "s",
      advice: { explicitBucketBoundaries: TASK_BUCKETS },
    }),
    polls: meter.createCounter(MetricName.polls, {
      description: "tasks/get requests sent (error.type set on the ones that failed).",
      unit: "{poll}",
    }),
    pushedUpdates: meter.createCounter(MetricName.pushedUpdates, {
      description:
        "Task status notifications the server pushed (notifications/tasks, notifications/tasks/status).",
      unit: "{notification}",
    }),
    retries: meter.createCounter(MetricName.retries, {
      description: "Retries of requests after transient faults, by method.",
      unit: "{retry}",
    }),
  };
}
