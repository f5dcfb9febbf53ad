/**
 * The packed declarations against the runtimes whose own types differ from the DOM's where this library meets
 * them: `fetch`, `Request`/`Response` and `AbortSignal`. A consumer file passes the runtime's global `fetch` to
 * `withHttpErrorMapping` and `withRoutingHeaders`, and hands the client a URL and a signal; it must type-check
 * under Deno (`deno check`, Deno's own lib) and under Cloudflare Workers' types (`@cloudflare/workers-types`
 * with tsc, no DOM lib, no @types/node), the OAuth and telemetry plug-ins included. Node's and the browser's are
 * covered by consumer.test.ts.
 */
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedConsumer, ROOT, type Consumer } from "../package/packed.js";
import { CLI_RUNTIMES } from "./runtimes.js";

const exec = promisify(execFile);

const USAGE = `import { TaskClient, type TaskOutcome } from "mcp-tasks";
import { withHttpErrorMapping, withRoutingHeaders } from "mcp-tasks/transport";
import { oauth, type OAuthProviderLike } from "mcp-tasks/oauth";
import { telemetry } from "mcp-tasks/telemetry";

export async function run(url: string, signal: AbortSignal): Promise<TaskOutcome["kind"]> {
  const wrapped = withRoutingHeaders(withHttpErrorMapping(fetch));
  const response: Response = await wrapped(new URL(url), { method: "GET", signal });
  await response.body?.cancel();
  const client = await TaskClient.connect(new URL(url));
  const handle = client.callTool("slow", {}, { signal });
  const outcome = await handle.outcome();
  await client.close();
  return outcome.kind;
}

export async function withPlugins(url: string, provider: OAuthProviderLike): Promise<void> {
  const client = await TaskClient.connect(url, { auth: oauth(provider), telemetry: telemetry({ pollSpans: "all" }) });
  await client.close();
}
`;

let consumer: Consumer;

beforeAll(async () => {
  consumer = await packedConsumer();
}, 60_000);

afterAll(() => consumer?.remove());

describe("the declarations under other runtimes' types", () => {
  it("type-check with Deno's own types (deno check)", async () => {
    const deno = CLI_RUNTIMES.find((runtime) => runtime.name === "Deno")?.resolve();
    if (deno === undefined) throw new Error("no Deno runtime entry");
    writeFileSync(join(consumer.dir, "deno-usage.ts"), USAGE);
    const result = await exec(
      deno.binary,
      ["check", "--no-lock", "--node-modules-dir=manual", "deno-usage.ts"],
      { cwd: consumer.dir, env: { ...process.env, ...deno.env }, timeout: 120_000 },
    ).catch((error: { stdout?: string; stderr?: string; code?: number }) => error);
    expect(result.stderr ?? "", String(result.stdout)).not.toMatch(/error/i);
    expect((result as { code?: number }).code ?? 0).toBe(0);
  }, 150_000);

  it("type-check with Cloudflare Workers' types (@cloudflare/workers-types, no DOM lib)", async () => {
    writeFileSync(join(consumer.dir, "worker-usage.ts"), USAGE);
    writeFileSync(
      join(consumer.dir, "tsconfig.workers.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "ES2022",
          moduleResolution: "Bundler",
          lib: ["ES2022", "ESNext.Disposable"],
          types: [join(ROOT, "node_modules", "@cloudflare", "workers-types")],
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ["worker-usage.ts"],
      }),
    );
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const result = await exec(process.execPath, [tsc, "-p", "tsconfig.workers.json"], {
      cwd: consumer.dir,
      timeout: 120_000,
    }).catch((error: { stdout?: string; code?: number }) => error);
    expect(result.stdout ?? "").toBe("");
    expect((result as { code?: number }).code ?? 0).toBe(0);
  }, 150_000);
});
