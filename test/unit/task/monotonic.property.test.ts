import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DetailedTask, InputRequest, TaskStatus } from "../../../src/schema/index.js";
import { MAX_QUEUED } from "../../../src/task/cursor.js";
import type { TaskUpdate } from "../../../src/task/types.js";
import { TASK_ID, collect, flush, newTask, toolResult } from "./helpers.js";

const EPOCH = Date.UTC(2026, 6, 28, 10, 0, 0);
const TERMINAL = new Set<TaskStatus>(["completed", "failed", "cancelled"]);

/** A snapshot plus the instant its timestamp denotes (NaN when it is deliberately unreadable). */
interface Offered {
  snapshot: DetailedTask;
  time: number;
}

/** The same instant written the ways servers write it, or not a time at all. */
function stamp(seconds: number, style: number): { text: string; time: number } {
  const time = EPOCH + seconds * 1000;
  switch (style) {
    case 0:
      return { text: new Date(time).toISOString(), time };
    case 1:
      return { text: `${new Date(time + 2 * 3_600_000).toISOString().slice(0, 19)}+02:00`, time };
    case 2:
      return { text: `${new Date(time).toISOString().slice(0, 19)}.000000Z`, time };
    default:
      return { text: "not-a-timestamp", time: Number.NaN };
  }
}

const offered: fc.Arbitrary<Offered> = fc
  .record({
    status: fc.constantFrom<TaskStatus>("working", "input_required", "completed", "failed", "cancelled"),
    message: fc.option(fc.constantFrom("queued", "running", "almost"), { nil: undefined }),
    seconds: fc.integer({ min: 0, max: 12 }),
    style: fc.constantFrom(0, 0, 0, 1, 2, 3),
    keys: fc.subarray(["city", "units", "confirm"], { minLength: 1 }),
  })
  .map(({ status, message, seconds, style, keys }): Offered => {
    const { text, time } = stamp(seconds, style);
    const base = {
      taskId: TASK_ID,
      createdAt: new Date(EPOCH).toISOString(),
      lastUpdatedAt: text,
      ttlMs: null,
    };
    const fields = message === undefined ? base : { ...base, statusMessage: message };
    const ask: InputRequest = { method: "roots/list", params: {} };
    switch (status) {
      case "input_required":
        return {
          time,
          snapshot: { ...fields, status, inputRequests: Object.fromEntries(keys.map((k) => [k, ask])) },
        };
      case "completed":
        return { time, snapshot: { ...fields, status, result: { ...toolResult(`done at ${seconds}`) } } };
      case "failed":
        return {
          time,
          snapshot: { ...fields, status, error: { code: -32000, message: `failed at ${seconds}` } },
        };
      default:
        return { time, snapshot: { ...fields, status } };
    }
  });

describe("for any sequence of server snapshots", () => {
  it("consumers see updates that never go backwards and end in exactly one terminal update when one was offered", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(offered, { maxLength: 25 }), async (sequence) => {
        const { handle, sink } = newTask();
        const timeOf = new Map(sequence.map((entry) => [entry.snapshot, entry.time]));
        const heard: TaskUpdate<unknown>[] = [];
        handle.on("update", (update) => heard.push(update));
        const reading = collect(handle);
        const idle = handle[Symbol.asyncIterator]();
        for (const { snapshot } of sequence) {
          sink.accept(snapshot);
          await flush();
        }
        if (!handle.isSettled) handle.detach();
        const read = await reading;
        const idleSaw: TaskUpdate<unknown>[] = [];
        for (let next = await idle.next(); !next.done; next = await idle.next()) idleSaw.push(next.value);

        // Readable timestamps of the non-terminal updates never decrease.
        let newest = Number.NEGATIVE_INFINITY;
        for (const update of heard.filter((candidate) => !candidate.terminal)) {
          const time = timeOf.get(update.snapshot!) ?? Number.NaN;
          if (Number.isNaN(time)) continue;
          expect(time).toBeGreaterThanOrEqual(newest);
          newest = time;
        }

        // Nothing after the terminal update, and exactly one when a terminal snapshot was offered: the first.
        const firstTerminal = sequence.find((entry) => TERMINAL.has(entry.snapshot.status));
        const terminals = heard.filter((update) => update.terminal);
        if (firstTerminal === undefined) {
          expect(terminals).toEqual([]);
          expect((await handle.outcome()).kind).toBe("detached");
        } else {
          expect(terminals).toHaveLength(1);
          expect(heard.at(-1)?.snapshot).toBe(firstTerminal.snapshot);
          expect((await handle.outcome()).kind).toBe(firstTerminal.snapshot.status);
        }

        // A consumer reading along sees exactly what listeners heard.
        expect(read).toEqual(heard);
        // A consumer that never read sees a bounded, ordered part of it, ending in the same terminal update.
        expect(idleSaw.length).toBeLessThanOrEqual(MAX_QUEUED);
        let position = -1;
        for (const update of idleSaw) {
          const index = heard.indexOf(update, position + 1);
          expect(index).toBeGreaterThan(position);
          position = index;
        }
        if (terminals.length > 0) expect(idleSaw.at(-1)).toBe(terminals[0]);
      }),
      { numRuns: 300 },
    );
  });
});
