/**
 * The client's alarm clock: each handle's nearest time limit rings on time, once, from one timer; setting an
 * alarm to the time it has is free; a ring that throws is reported without stopping the others.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Alarm, AlarmClock } from "../../../src/scheduler/alarm-clock.js";

/** An alarm whose rings are recorded as the (fake) time they happened at. */
function recording(rings: number[], onRing?: () => void): Alarm {
  return new Alarm({
    ring: () => {
      rings.push(Date.now());
      onRing?.();
    },
  });
}

const T0 = Date.UTC(2026, 10, 30, 12);

beforeEach(() => {
  vi.useFakeTimers({ now: T0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("AlarmClock", () => {
  it("rings each alarm once at its time, earliest first, with one timer", () => {
    const clock = new AlarmClock();
    const order: string[] = [];
    const late = new Alarm({ ring: () => order.push(`late@${Date.now() - T0}`) });
    const early = new Alarm({ ring: () => order.push(`early@${Date.now() - T0}`) });
    clock.set(late, T0 + 300);
    clock.set(early, T0 + 100);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(99);
    expect(order).toEqual([]);
    vi.advanceTimersByTime(1_000);
    expect(order).toEqual(["early@100", "late@300"]);
    expect(clock.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("moves an alarm that is set again, and does nothing when it is set to the time it has", () => {
    const clock = new AlarmClock();
    const rings: number[] = [];
    const alarm = recording(rings);
    clock.set(alarm, T0 + 500);
    const seq = alarm.seq;
    clock.set(alarm, T0 + 500);
    expect(alarm.seq).toBe(seq); // untouched: no heap work
    clock.set(alarm, T0 + 200);
    vi.advanceTimersByTime(1_000);
    expect(rings).toEqual([T0 + 200]);
  });

  it("never rings a cleared alarm, and leaves no timer behind", () => {
    const clock = new AlarmClock();
    const rings: number[] = [];
    const alarm = recording(rings);
    clock.set(alarm, T0 + 100);
    clock.clear(alarm);
    clock.clear(alarm); // clearing twice is harmless
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(rings).toEqual([]);
  });

  it("reports a ring that throws and still rings the others", () => {
    const errors: unknown[] = [];
    const clock = new AlarmClock({ onError: (error) => errors.push(error) });
    const rings: number[] = [];
    clock.set(
      new Alarm({
        ring: () => {
          throw new Error("boom");
        },
      }),
      T0 + 100,
    );
    clock.set(recording(rings), T0 + 100);
    vi.advanceTimersByTime(100);
    expect(errors).toEqual([new Error("boom")]);
    expect(rings).toEqual([T0 + 100]);
  });

  it("rings an alarm set again for now on the next timer, not in a loop", () => {
    const clock = new AlarmClock();
    const rings: number[] = [];
    let alarm: Alarm | undefined = undefined;
    alarm = recording(rings, () => {
      if (rings.length < 3) clock.set(alarm as Alarm, Date.now());
    });
    clock.set(alarm, T0 + 50);
    vi.advanceTimersByTime(50);
    expect(rings).toEqual([T0 + 50]);
    vi.advanceTimersByTime(10);
    expect(rings).toHaveLength(3);
  });

  it("rings nothing after close and holds no timer", () => {
    const clock = new AlarmClock();
    const rings: number[] = [];
    clock.set(recording(rings), T0 + 100);
    clock.close();
    clock.set(recording(rings), T0 + 200);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1_000);
    expect(rings).toEqual([]);
  });
});
