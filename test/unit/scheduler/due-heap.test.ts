import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DueHeap, type HeapEntry } from "../../../src/scheduler/due-heap.js";

const ENTRIES = 40;

/** Every parent is due no later than its children, and every entry knows its own position. */
function hasHeapShape(heap: DueHeap<HeapEntry>): boolean {
  const items = heap["items"];
  return items.every((item, index) => {
    const parent = items[(index - 1) >> 1] as HeapEntry;
    return (
      item.index === index &&
      (index === 0 || parent.due < item.due || (parent.due === item.due && parent.seq < item.seq))
    );
  });
}

const entry = (name: string): HeapEntry & { name: string } => ({ name, due: 0, seq: 0, index: -1 });

describe("DueHeap", () => {
  it("gives entries back earliest first, ties in the order they were scheduled", () => {
    const heap = new DueHeap<ReturnType<typeof entry>>();
    const plan: Array<[string, number]> = [
      ["c", 30],
      ["a", 10],
      ["b1", 20],
      ["b2", 20],
      ["d", 40],
    ];
    plan.forEach(([name, due], seq) => heap.push(Object.assign(entry(name), { due, seq })));
    const order: string[] = [];
    for (let next = heap.pop(); next !== undefined; next = heap.pop()) order.push(next.name);
    expect(order).toEqual(["a", "b1", "b2", "c", "d"]);
  });

  it("stays ordered through any mix of push, move, remove and pop (property)", () => {
    const op = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant("set" as const),
          id: fc.nat(ENTRIES - 1),
          due: fc.nat(1000),
        }),
      },
      { weight: 3, arbitrary: fc.record({ kind: fc.constant("remove" as const), id: fc.nat(ENTRIES - 1) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant("pop" as const) }) },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300, size: "max" }), (ops) => {
        const heap = new DueHeap<HeapEntry>();
        const entries = Array.from({ length: ENTRIES }, () => ({ due: 0, seq: 0, index: -1 }));
        const model = new Map<HeapEntry, { due: number; seq: number }>();
        const first = () => {
          let best: HeapEntry | undefined;
          for (const [candidate, at] of model) {
            const bestAt = best && model.get(best);
            if (!bestAt || at.due < bestAt.due || (at.due === bestAt.due && at.seq < bestAt.seq))
              best = candidate;
          }
          return best;
        };
        let seq = 0;
        for (const step of ops) {
          if (step.kind === "set") {
            const target = entries[step.id] as HeapEntry;
            target.due = step.due;
            target.seq = seq++;
            if (heap.has(target)) heap.update(target);
            else heap.push(target);
            model.set(target, { due: target.due, seq: target.seq });
          } else if (step.kind === "remove") {
            const target = entries[step.id] as HeapEntry;
            if (heap.has(target)) heap.remove(target);
            model.delete(target);
          } else {
            const expected = first();
            if (heap.pop() !== expected) return false;
            if (expected) model.delete(expected);
          }
          const consistent =
            hasHeapShape(heap) &&
            heap.size === model.size &&
            heap.peek() === first() &&
            entries.every((candidate) => heap.has(candidate) === model.has(candidate));
          if (!consistent) return false;
        }
        heap.clear();
        expect(heap.size).toBe(0);
        return entries.every((candidate) => candidate.index === -1);
      }),
      { numRuns: 300 },
    );
  });
});
