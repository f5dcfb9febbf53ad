/**
 * A process for lock-race.test.ts: `node lock-takeover-child.mjs <dir> <name> <others> <delayMs>`. It opens a
 * `fileStore` whose first read of `.lock` waits until `<others>` other processes have read it too (each drops a
 * file `<dir>.read-<name>` beside the directory), then `delayMs` more: so every process judges the same stale
 * lock before any of them acts. Prints `held` (then keeps the lock 500 ms and prints `still held` if `.lock` is
 * still its own) or `refused <error name>`.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileStoreOver } from "../../../src/store/file.js";
import { nodeFileIo, type FileIo } from "../../../src/store/file-io.js";

const [dir, name, others, delayMs] = process.argv.slice(2) as [string, string, string, string];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let waited = false;

const io: FileIo = {
  ...nodeFileIo,
  readFile: async (path) => {
    const text = await nodeFileIo.readFile(path);
    if (!waited && path === join(dir, ".lock")) {
      waited = true;
      writeFileSync(`${dir}.read-${name}`, "");
      const prefix = `${basename(dir)}.read-`;
      const count = () => readdirSync(dirname(dir)).filter((entry) => entry.startsWith(prefix)).length;
      for (let tries = 0; count() < Number(others) + 1 && tries < 2000; tries++) await pause(5);
      await pause(Number(delayMs));
    }
    return text;
  },
};

const store = fileStoreOver(io, dir);
try {
  await store.open();
  console.log("held");
  const mine = await nodeFileIo.readFile(join(dir, ".lock"));
  await pause(500);
  if ((await nodeFileIo.readFile(join(dir, ".lock")).catch(() => "")) === mine) console.log("still held");
  await store.close();
} catch (error) {
  console.log(`refused ${(error as Error).name}`);
}
