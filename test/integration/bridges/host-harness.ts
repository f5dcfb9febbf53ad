/**
 * What the bridge tests over a host share: two reference servers, `sales` and `weather` (the bridge tests' tools
 * on each), behind one `TaskHost`, and readers of what reached each server.
 */
import { afterAll, afterEach, beforeAll } from "vitest";
import type { BridgeUpdateEvent } from "mcp-tasks/ai-sdk";
import { TaskHost } from "mcp-tasks/host";
import type { HttpTaskServer } from "mcp-tasks/testing";
import { bridgeServer } from "./harness.js";

/** Two reference servers, `sales` and `weather` (the same tools on each), behind one host. */
export interface HostOfTwo {
  host: TaskHost;
  sales: HttpTaskServer;
  weather: HttpTaskServer;
  close(): Promise<void>;
}

/**
 * A host of two servers for the tests of one `describe` block: started before them, its request logs cleared
 * after each, closed after them all. Read it through the getter once the block's tests run.
 */
export function hostOfTwoForBlock(): () => HostOfTwo {
  let two: HostOfTwo | undefined;
  beforeAll(async () => {
    two = await hostOfTwo();
  });
  afterAll(() => two?.close());
  afterEach(() => {
    two?.sales.requests.clear();
    two?.weather.requests.clear();
  });
  return () => two as HostOfTwo;
}

/** An `onUpdate` that notes `server tool statusMessage` for each update with a message. */
export function hearStatus(heard: string[]): (event: BridgeUpdateEvent) => void {
  return ({ server, toolName, update }) => {
    if (update.statusMessage !== undefined) heard.push(`${server} ${toolName} ${update.statusMessage}`);
  };
}

async function hostOfTwo(): Promise<HostOfTwo> {
  const [sales, weather] = await Promise.all([bridgeServer(), bridgeServer()]);
  const host = await TaskHost.connect({
    servers: { sales: sales.url, weather: weather.url },
    polling: { minIntervalMs: 5 },
  });
  return {
    host,
    sales,
    weather,
    async close() {
      await host.close();
      await Promise.all([sales.close(), weather.close()]);
    },
  };
}

/** The tool names each server was called with (`tools/call`), oldest first. */
export function calledTools(server: HttpTaskServer): string[] {
  return server.requests
    .forMethod("tools/call")
    .map((request) => String((request.body as { params?: { name?: unknown } }).params?.name));
}
