/**
 * The client under test for the conformance suite's client scenarios. `npm run conformance` bundles it (with
 * esbuild, into `.conformance/<time>/client.mjs`) and has the suite launch it as
 * `conformance client --command "<node> client.mjs" …`; the suite appends the scenario server's URL and sets
 * `MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION` and (for some scenarios)
 * `MCP_CONFORMANCE_CONTEXT`. What it does per scenario is in `client-scenarios.ts`. It also runs as it is:
 * `node --import tsx conformance/client.ts <url>` with those variables set.
 *
 * On success it prints `DONE_LINE` and exits 0; the runner checks for that line in the suite's `stdout.txt`, since
 * the suite itself does not fail a scenario whose client crashed once a baseline is given. Any error exits 1 with
 * the error on stderr (the suite's `stderr.txt`).
 */
import { TaskClient } from "mcp-tasks";
import { CLIENT_SCENARIOS, DONE_LINE } from "./client-scenarios.js";

const CLIENT_INFO = { name: "mcp-tasks-conformance", version: "0.1.0" };

async function main(): Promise<void> {
  const name = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const serverUrl = process.argv[2];
  if (serverUrl === undefined)
    throw new Error("usage: client.ts <server-url> (the conformance suite runs it)");
  const scenario = CLIENT_SCENARIOS.find((entry) => entry.name === name);
  if (scenario === undefined) {
    throw new Error(`no scenario ${JSON.stringify(name)} in conformance/client-scenarios.ts`);
  }
  const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Record<string, unknown>;
  await scenario.run({
    serverUrl,
    context,
    async connect(options = {}) {
      const client = await TaskClient.connect(serverUrl, { clientInfo: CLIENT_INFO, ...options });
      const spoken = client.server.protocolVersion;
      if (version !== undefined && spoken !== version) {
        await client.close();
        throw new Error(`the suite runs ${name} at ${version}, but the client negotiated ${spoken}`);
      }
      return client;
    },
  });
}

main().then(
  () => {
    console.log(DONE_LINE);
    process.exit(0);
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
