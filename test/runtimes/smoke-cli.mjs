/**
 * The smoke scenario for runtimes with a command line and a file system (Node, Bun, Deno):
 * `<runtime> smoke-cli.mjs <server url> <store dir>` prints the report as one JSON line.
 */
import { fileStore } from "mcp-tasks/store";
import { runSmoke } from "./smoke.mjs";

const [url, storeDir] = process.argv.slice(2);
const report = await runSmoke({ url, openStore: () => fileStore(storeDir) });
console.log(JSON.stringify(report));
