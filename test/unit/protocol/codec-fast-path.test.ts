/**
 * The poll path's validation shortcut (`isWorkingTaskInShape`) must be the full path's verdict for the frames it
 * takes: every server frame is still validated (DESIGN decision 7), only more cheaply. Checked against the schema
 * and the advisory-field reading it stands in for, on frames built from a set of values per field, good and bad
 * (absent, undefined, wrong types, fractions, unsafe integers, numeric strings).
 */
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  isWorkingTaskInShape,
  normaliseAdvisoryFields,
  parseGetTaskResult,
  parseTaskNotification,
} from "../../../src/protocol/codec.js";
import { ProtocolError } from "../../../src/protocol/errors.js";
import { validators } from "../../../src/schema/validators.js";

const ABSENT = Symbol("absent");

const values: Record<string, unknown[]> = {
  taskId: [ABSENT, "task-1", 7, null],
  status: [ABSENT, "working", "completed", "input_required", "Working"],
  statusMessage: [ABSENT, undefined, "step 3", 3, null],
  createdAt: [ABSENT, "2026-07-28T10:30:00Z", 5],
  lastUpdatedAt: [ABSENT, "2026-07-28T10:40:00Z", "not a time", null],
  ttlMs: [ABSENT, undefined, null, 60_000, 0, -0, -5, 1.5, 2 ** 53, "60000", Number.NaN],
  pollIntervalMs: [ABSENT, undefined, 100, 0, 1.5, "100", null, Number.POSITIVE_INFINITY, 2 ** 53],
};

/** A frame from `base` with `changes` applied (ABSENT leaves the key out). */
function frameOf(base: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const frame: Record<string, unknown> = { resultType: "complete" };
  for (const [key, value] of Object.entries({ ...base, ...changes }))
    if (value !== ABSENT) frame[key] = value;
  return frame;
}

const BASES = [
  {
    taskId: "task-1",
    status: "working",
    createdAt: "2026-07-28T10:30:00Z",
    lastUpdatedAt: "2026-07-28T10:40:00Z",
    ttlMs: null,
  },
  {
    taskId: "task-1",
    status: "working",
    statusMessage: "step 3",
    createdAt: "2026-07-28T10:30:00Z",
    lastUpdatedAt: "2026-07-28T10:40:00Z",
    ttlMs: 60_000,
    pollIntervalMs: 100,
  },
];

/**
 * Each field's every value on frames otherwise in shape (the shortcut and the full path are both a condition per
 * field), and every combination of the three advisory fields, for a working and a cancelled task.
 */
function* frames(): Generator<Record<string, unknown>> {
  for (const base of BASES)
    for (const [key, options] of Object.entries(values))
      for (const value of options) yield frameOf(base, { [key]: value });
  for (const status of ["working", "cancelled"])
    for (const statusMessage of values.statusMessage!)
      for (const ttlMs of values.ttlMs!)
        for (const pollIntervalMs of values.pollIntervalMs!)
          yield frameOf(BASES[0]!, { status, statusMessage, ttlMs, pollIntervalMs });
}

/** The full path: the advisory fields read liberally, then the schema. */
function fullPath(frame: Record<string, unknown>) {
  const warnings: string[] = [];
  const read = normaliseAdvisoryFields("tasks/get", frame, (message) => warnings.push(message));
  const valid = validators().detailedTaskSchema.safeParse(read).success;
  return { valid, unchanged: read === frame && warnings.length === 0, working: read.status === "working" };
}

describe("the poll path's validation shortcut", () => {
  it("takes a frame exactly when the full path would accept that working task as it came, without a warning", () => {
    let taken = 0;
    let checked = 0;
    for (const frame of frames()) {
      checked++;
      const full = fullPath(frame);
      const expected = full.valid && full.unchanged && full.working;
      if (isWorkingTaskInShape(frame) !== expected) {
        throw new Error(`shortcut ${String(!expected)}, full path ${String(expected)}: ${inspect(frame)}`);
      }
      if (expected) taken++;
    }
    expect(checked).toBe(2 * 41 + 2 * 5 * 11 * 9);
    // Per base, the good values of each field: 1 id, 1 status, 2 messages (absent, text), 1 createdAt, 2 stamps,
    // 5 TTLs (null, whole), 3 intervals (absent, whole); then 2 messages × 5 TTLs × 3 intervals of a working task.
    expect(taken).toBe(2 * (1 + 1 + 2 + 1 + 2 + 5 + 3) + 2 * 5 * 3);
  });

  it("returns the server's own frame for a working task, and still refuses a bad one with a ProtocolError", () => {
    const frame = {
      resultType: "complete",
      taskId: "task-1",
      status: "working",
      statusMessage: "step 3",
      createdAt: "2026-07-28T10:30:00Z",
      lastUpdatedAt: "2026-07-28T10:40:00Z",
      ttlMs: 60_000,
      pollIntervalMs: 100,
      extra: { kept: true },
    };
    expect(parseGetTaskResult(frame)).toBe(frame);
    expect(parseTaskNotification(frame)).toBe(frame);
    expect(() => parseGetTaskResult({ ...frame, createdAt: 5 })).toThrow(ProtocolError);
    expect(() => parseGetTaskResult({ ...frame, taskId: undefined })).toThrow(ProtocolError);
  });
});
