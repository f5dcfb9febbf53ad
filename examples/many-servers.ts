/**
 * Many servers, one host: tasks on three MCP servers (two over Streamable HTTP, one over stdio) run side by side
 * through one `TaskHost`, and one HTTP server restarts in the middle. The other servers' tasks are not disturbed;
 * the task the restart took with it ends `not_found` (the reference server keeps its tasks in memory), and the
 * same call made again, through the same host, runs on the server that came back.
 *
 * `npx tsx examples/many-servers.ts` starts the three reference servers itself.
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { TaskHost, type CallToolResult } from "mcp-tasks";
import { fixtureTools, startTaskServer, type HttpTaskServer } from "mcp-tasks/testing";

export interface ThreeServers {
  /** Two Streamable HTTP servers. */
  research: string;
  reports: string;
  /** A stdio server: its command. */
  local: { command: string; args: string[] };
  /** Stops the `reports` server and starts it again at the same URL. */
  restartReports(): Promise<void>;
}

export async function manyServers(
  servers: ThreeServers,
  log: (line: string) => void = console.log,
): Promise<void> {
  await using host = await TaskHost.connect({
    servers: { research: servers.research, reports: servers.reports, local: servers.local },
  });
  for (const { name, state, supportsTasks } of host.servers)
    log(`${name}: ${state}${supportsTasks ? ", serves tasks" : ""}`);

  // One task on each server, side by side, each called by its qualified name.
  const research = host.callTool("research__slow_compute", { seconds: 2, label: "research" });
  const local = host.callTool("local__slow_compute", { seconds: 2, label: "local" });
  const report = host.callTool("reports__slow_compute", { seconds: 60, label: "report" });
  await report.created;

  await servers.restartReports();
  const lost = await report.outcome();
  log(`reports restarted; its task ended ${lost.kind}`);
  const again = host.callTool("reports__slow_compute", { seconds: 1, label: "report, again" });

  for (const [name, handle] of [
    ["research", research],
    ["local", local],
    ["reports", again],
  ] as const) {
    log(`${name}: ${text(await handle)}`);
  }
}

function text(result: CallToolResult): string {
  return result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ");
}

/** The reference server over stdio, through this repository's launcher. */
export function stdioReferenceServer(timeScale: number): { command: string; args: string[] } {
  const launcher = fileURLToPath(new URL("../bin/mcp-tasks-server.js", import.meta.url));
  return { command: process.execPath, args: [launcher, "--stdio", "--time-scale", String(timeScale)] };
}

/** Starts two reference servers over HTTP; `restartReports` brings the second back on its port. */
export async function startHttpPair(timeScale: number): Promise<{
  research: HttpTaskServer;
  reports: () => HttpTaskServer;
  restartReports(): Promise<void>;
  close(): Promise<void>;
}> {
  const tools = fixtureTools({ timeScale });
  const research = await startTaskServer({ tools });
  let reports = await startTaskServer({ tools });
  return {
    research,
    reports: () => reports,
    async restartReports() {
      const { port } = reports;
      await reports.close();
      reports = await startTaskServer({ tools, port });
    },
    async close() {
      await Promise.all([research.close(), reports.close()]);
    },
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pair = await startHttpPair(1);
  try {
    await manyServers({
      research: pair.research.url,
      reports: pair.reports().url,
      local: stdioReferenceServer(1),
      restartReports: () => pair.restartReports(),
    });
  } finally {
    await pair.close();
  }
}
