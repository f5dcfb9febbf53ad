/**
 * A process for lock-race.test.ts: `node lock-race-child.mjs <dir> <name> <rounds>`. Each round it takes the
 * store directory (waiting while another process has it), checks that nobody else believes they hold it (a
 * marker file it writes must still be its own after a put, and now and then a list), and lets go. Prints `conflict ...` for
 * every round another process got in, `failed ...` for a write that failed, then `done <rounds>`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { TaskRef } from "mcp-tasks";
import { StoreLockedError, fileStore } from "mcp-tasks/store";

const [dir, name, rounds] = process.argv.slice(2) as [string, string, string];
const server = { url: "http://127.0.0.1:9/mcp", name: "ref", protocolVersion: "2026-07-28" };
const ref = (taskId: string): TaskRef => ({
  v: 1,
  taskId,
  server,
  method: "tools/call",
  toolName: "t",
  answeredInputKeys: [],
});
const marker = `${dir}.holder`; // beside the directory: list() moves unknown files in it aside
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (let round = 0; round < Number(rounds); round++) {
  for (let attempt = 0; ; attempt++) {
    const store = fileStore(dir, { unsafeNoSync: true });
    try {
      await store.open();
    } catch (error) {
      await store.close();
      if (!(error instanceof StoreLockedError) || attempt > 5000) throw error;
      await pause(1 + Math.random() * 4);
      continue;
    }
    writeFileSync(marker, name);
    try {
      await store.put(ref(`${name}-${round}`));
      if (round % 10 === 0) await store.list();
    } catch (error) {
      console.log(`failed ${name} round ${round}: ${String(error)}`);
    }
    const holder = readFileSync(marker, "utf8");
    if (holder !== name) console.log(`conflict ${name} round ${round}: ${holder} held it too`);
    await store.close();
    break;
  }
}
console.log(`done ${rounds}`);
