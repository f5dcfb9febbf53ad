/**
 * A process for write-crash.test.ts: `node write-crash-child.mjs <dir> <scenario> <killBefore>`. It opens a
 * `fileStore` on `dir`, then runs the scenario's writes, printing `reported <name>` as each resolves. Counting
 * from the first write, it kills itself with SIGKILL just before file operation number `killBefore` (0: never),
 * and at the end prints `operations <n>`.
 */
import { writeSync } from "node:fs";
import { fileStoreOver } from "../../../src/store/file.js";
import { nodeFileIo, type FileIo } from "../../../src/store/file-io.js";
import type { TaskRef } from "../../../src/task/ref.js";

const [dir, scenario, killBefore] = process.argv.slice(2) as [string, string, string];
const limit = Number(killBefore);
let armed = false;
let operations = 0;

/** Counts (and, at the chosen one, dies before) every operation that changes or syncs something. */
function before(): void {
  if (!armed) return;
  operations++;
  if (operations === limit) process.kill(process.pid, "SIGKILL");
}

const io: FileIo = {
  ...nodeFileIo,
  open: async (path, flags) => {
    before();
    const handle = await nodeFileIo.open(path, flags);
    return {
      write: (data) => (before(), handle.write(data)),
      sync: () => (before(), handle.sync()),
      close: () => (before(), handle.close()),
    };
  },
  rename: (from, to) => (before(), nodeFileIo.rename(from, to)),
  link: (from, to) => (before(), nodeFileIo.link(from, to)),
  unlink: (path) => (before(), nodeFileIo.unlink(path)),
};

const server = { url: "http://127.0.0.1:9/mcp", name: "ref", protocolVersion: "2026-07-28" };
export function ref(taskId: string, keys: string[] = []): TaskRef {
  return { v: 1, taskId, server, method: "tools/call", toolName: "t", answeredInputKeys: keys };
}

const store = fileStoreOver(io, dir);
await store.open();
const say = (line: string) => writeSync(1, `${line}\n`); // synchronous: nothing is lost to the SIGKILL
armed = true;
if (scenario === "update") await store.put(ref("a", ["q"]));
else if (scenario === "create") await store.put(ref("a"));
else if (scenario === "remove") await store.remove(ref("a"));
else throw new Error(`unknown scenario ${scenario}`);
say("reported first");
await store.put(ref("b")); // a second write: a kill during it must not touch the first
say("reported second");
armed = false;
say(`operations ${operations}`);
await store.close();
