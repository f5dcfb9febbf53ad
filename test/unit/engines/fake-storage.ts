/**
 * A stand-in for a Durable Object's `ctx.storage` in Node: the key-value API over a `Map` (values structured-cloned,
 * as the runtime stores them) and an alarm the test fires by hand. workerd itself is tried in
 * test/integration/engines/cloudflare.test.ts.
 */
import type { DurableObjectStorageLike } from "mcp-tasks/cloudflare";

export interface FakeStorage extends DurableObjectStorageLike {
  readonly data: Map<string, unknown>;
  readonly alarmAt: number | null;
}

export function fakeStorage(): FakeStorage {
  const data = new Map<string, unknown>();
  let alarmAt: number | null = null;
  return {
    data,
    get alarmAt() {
      return alarmAt;
    },
    get: <T>(key: string) => Promise.resolve(structuredClone(data.get(key)) as T | undefined),
    put: (key, value) => {
      data.set(key, structuredClone(value));
      return Promise.resolve();
    },
    delete: (key) => Promise.resolve(data.delete(key)),
    list: <T>(options: { prefix?: string } = {}) => {
      const found = new Map<string, T>();
      for (const [key, value] of [...data].sort(([a], [b]) => a.localeCompare(b))) {
        if (key.startsWith(options.prefix ?? "")) found.set(key, structuredClone(value) as T);
      }
      return Promise.resolve(found);
    },
    getAlarm: () => Promise.resolve(alarmAt),
    setAlarm: (time) => {
      alarmAt = typeof time === "number" ? time : time.getTime();
      return Promise.resolve();
    },
    deleteAlarm: () => {
      alarmAt = null;
      return Promise.resolve();
    },
  };
}
