/**
 * The packed package in a consumer project that installed only its production dependencies: the main
 * entry loads from ESM and CJS without `@modelcontextprotocol/server`; `mcp-tasks/testing` and the
 * `mcp-tasks-server` command fail naming the package to install; an error from the CJS copy is an
 * `instanceof` the ESM copy's class and the other way round; the declarations compile for a strict consumer
 * with `exactOptionalPropertyTypes`, without `@types/node` and without the DOM lib; `npx mcp-tasks --help` runs;
 * `telemetry: telemetry()` without `@opentelemetry/api` fails naming the package.
 */
import { execFile } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packedConsumer, ROOT, type Consumer } from "./packed.js";

const exec = promisify(execFile);
let consumer: Consumer;

beforeAll(async () => {
  consumer = await packedConsumer();
}, 60_000);
afterAll(() => consumer?.remove());

/** Runs a script file in the consumer project with Node; resolves with its exit code and output. */
async function node(file: string, source: string): Promise<{ code: number; stdout: string; stderr: string }> {
  writeFileSync(join(consumer.dir, file), source);
  try {
    const { stdout, stderr } = await exec(process.execPath, [file], { cwd: consumer.dir, timeout: 30_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" };
  }
}

describe("a production install (no @modelcontextprotocol/server)", () => {
  it("has no server package to find", () => {
    expect(existsSync(join(consumer.dir, "node_modules", "@modelcontextprotocol", "server"))).toBe(false);
    expect(existsSync(join(consumer.packageDir, "node_modules"))).toBe(false);
  });

  it("loads the main entry and mcp-tasks/schema from ESM and from CJS", async () => {
    const esm = await node(
      "main.mjs",
      `import { TaskClient } from "mcp-tasks"; import { getTaskResultSchema } from "mcp-tasks/schema";
       console.log(typeof TaskClient.connect, typeof getTaskResultSchema.parse);`,
    );
    expect(esm).toMatchObject({ code: 0, stdout: "function function\n" });
    const cjs = await node(
      "main.cjs",
      `const { TaskClient } = require("mcp-tasks"); const { getTaskResultSchema } = require("mcp-tasks/schema");
       console.log(typeof TaskClient.connect, typeof getTaskResultSchema.parse);`,
    );
    expect(cjs).toMatchObject({ code: 0, stdout: "function function\n" });
  });

  it.each([
    ["ESM import", "testing.mjs", `await import("mcp-tasks/testing");`],
    ["CJS require", "testing.cjs", `require("mcp-tasks/testing");`],
  ])("mcp-tasks/testing by %s fails naming the package to install", async (_, file, source) => {
    const result = await node(file, source);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("need @modelcontextprotocol/server, an optional peer dependency");
    expect(result.stderr).toContain("npm install --save-dev @modelcontextprotocol/server");
  });

  it("the mcp-tasks-server command fails naming the package to install", async () => {
    const bin = join(consumer.packageDir, "bin", "mcp-tasks-server.js");
    const launched = await exec(process.execPath, [bin, "--port", "0"], { cwd: consumer.dir }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code ?? -1, stderr: error.stderr ?? "" }),
    );
    expect(launched.code).toBe(1);
    expect(launched.stderr).toMatch(
      /^mcp-tasks-server: mcp-tasks\/testing and mcp-tasks-server need @modelcontextprotocol\/server/,
    );
  });

  it.each([
    [
      "ESM",
      "telemetry.mjs",
      `import { TaskClient } from "mcp-tasks";\nimport { telemetry } from "mcp-tasks/telemetry";`,
    ],
    [
      "CJS",
      "telemetry.cjs",
      `const { TaskClient } = require("mcp-tasks");\nconst { telemetry } = require("mcp-tasks/telemetry");`,
    ],
  ])(
    "%s: `telemetry: telemetry()` without @opentelemetry/api fails naming the package, before connecting",
    async (_, file, head) => {
      const result = await node(
        file,
        `${head}
       // Port 9 (discard): a connection attempt would fail differently.
       TaskClient.connect("http://127.0.0.1:9/mcp", { telemetry: telemetry() }).then(
         () => console.log("connected"),
         (error) => console.log(error.message),
       );`,
      );
      expect(result.stdout).toMatch(
        /^TaskClient's `telemetry` option needs @opentelemetry\/api, an optional peer dependency/,
      );
      expect(result.stdout).toContain("npm install @opentelemetry/api");
    },
  );

  it("`npx mcp-tasks --help` prints the usage and the exit codes", async () => {
    // npm links a dependency's bins into node_modules/.bin on install, executable; the unpacked tarball gets the same.
    const bin = join(consumer.dir, "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    chmodSync(join(consumer.packageDir, "bin", "mcp-tasks.js"), 0o755);
    symlinkSync(join("..", "mcp-tasks", "bin", "mcp-tasks.js"), join(bin, "mcp-tasks"));
    // A clean npm environment (the test runner may itself run under npm), and npm_config_yes=false: never fetch
    // a package from the registry (what `npx --no` means).
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
    env.npm_config_yes = "false";
    const { stdout } = await exec("npx", ["mcp-tasks", "--help"], {
      cwd: consumer.dir,
      env,
      timeout: 30_000,
    });
    expect(stdout).toMatch(/^Usage:\n {2}mcp-tasks call <url> <tool>/);
    expect(stdout).toContain("Exit codes:\n  0  completed");
  });
});

describe("with @modelcontextprotocol/server but without @modelcontextprotocol/sdk", () => {
  let withServer: Consumer;
  beforeAll(async () => {
    withServer = await packedConsumer(["@modelcontextprotocol/server"]);
  }, 60_000);
  afterAll(() => withServer?.remove());

  it.each([
    ["ESM", "eras.mjs", `const testing = await import("mcp-tasks/testing");`],
    ["CJS", "eras.cjs", `(async () => { const testing = require("mcp-tasks/testing");`],
  ])(
    "%s serves 2026-07-28 (with auth too), and era 2025-11-25 fails naming the package to install",
    async (kind, file, head) => {
      const body = `
      const modern = await testing.startTaskServer();
      console.log(modern.url.startsWith("http://127.0.0.1:"));
      await modern.close();
      const guarded = await testing.startTaskServer({ auth: { type: "oauth" } });
      const metadata = await fetch(guarded.auth.resourceMetadataUrl).then((response) => response.json());
      const refused = await fetch(guarded.url, { method: "POST", body: "{}" });
      console.log(JSON.stringify([guarded.auth.type, metadata.resource === guarded.url, refused.status]));
      await guarded.close();
      await testing.startTaskServer({ era: "2025-11-25" }).then(
        () => console.log("started"),
        (error) => console.log(error.name + ": " + error.message),
      );`;
      writeFileSync(join(withServer.dir, file), kind === "ESM" ? `${head}${body}` : `${head}${body} })();`);
      const { stdout } = await exec(process.execPath, [file], { cwd: withServer.dir, timeout: 30_000 });
      const [modern, guarded, legacy] = stdout.trim().split("\n");
      expect(modern).toBe("true");
      expect(guarded).toBe(JSON.stringify(["oauth", true, 401]));
      expect(legacy).toMatch(/^LegacySdkMissingError: era "2025-11-25" of mcp-tasks\/testing/);
      expect(legacy).toContain("npm install --save-dev @modelcontextprotocol/sdk");
    },
  );

  it("every error class every entry exports is recognised by instanceof across every copy (ESM, CJS, each entry's bundle), and never a class it is not", async () => {
    // What each class extends, written out: a class an entry exports that is missing here fails the test, so a new
    // one cannot ship without its brand being checked.
    const parents: Record<string, string> = {
      McpTasksError: "Error",
      ProtocolError: "McpTasksError",
      RpcError: "McpTasksError",
      MissingCapabilityError: "RpcError",
      TransportError: "McpTasksError",
      AuthError: "McpTasksError",
      TaskError: "McpTasksError",
      TaskFailedError: "TaskError",
      TaskCancelledError: "TaskError",
      TaskEndedError: "TaskError",
      InputUnansweredError: "TaskError",
      OutputSchemaError: "TaskError",
      TaskStoreError: "McpTasksError",
      LeaseLostError: "TaskStoreError",
      StoreLockedError: "TaskStoreError",
      UnsupportedError: "McpTasksError",
      InputRespondError: "McpTasksError",
      TaskRefError: "McpTasksError",
      ToolDefinitionError: "McpTasksError",
      ScriptError: "McpTasksError",
      EraOptionError: "McpTasksError",
      LegacySdkMissingError: "McpTasksError",
      CliUsageError: "McpTasksError",
    };
    const entries = [
      "",
      "/schema",
      "/testing",
      "/store",
      "/store/redis",
      "/oauth",
      "/telemetry",
      "/json-schema",
      "/transport",
    ];
    writeFileSync(
      join(withServer.dir, "brands.mjs"),
      `import { createRequire } from "node:module";
       const require = createRequire(import.meta.url);
       const parents = ${JSON.stringify(parents)};
       // Arguments for the constructors that read theirs; the rest take a message.
       const args = {
         TaskFailedError: ["t-1", { code: -32000, message: "boom" }],
         TransportError: ["down", { transient: false }],
         AuthError: [{ method: "tasks/get", reason: "unauthorized" }],
         TaskEndedError: ["expired", "t-1", { expiredAt: new Date(0) }],
       };
       const copies = [];
       for (const entry of ${JSON.stringify(entries)}) {
         for (const [kind, load] of [["esm", () => import("mcp-tasks" + entry)], ["cjs", async () => require("mcp-tasks" + entry)]]) {
           const module = await load();
           for (const [name, value] of Object.entries(module)) {
             if (typeof value === "function" && value.prototype instanceof Error) copies.push({ copy: kind + " mcp-tasks" + entry, name, cls: value });
           }
         }
       }
       const unknown = [...new Set(copies.map((c) => c.name).filter((name) => !(name in parents)))];
       const wrong = [];
       for (const a of copies) {
         const ancestors = new Set();
         for (let name = a.name; name in parents; name = parents[name]) ancestors.add(name);
         let instance;
         try {
           instance = new a.cls(...(args[a.name] ?? ["message"]));
         } catch (error) {
           wrong.push(a.copy + " " + a.name + " could not be made (give it arguments above): " + error.message);
           continue;
         }
         if (instance.name !== a.name) wrong.push(a.copy + " " + a.name + " is named " + instance.name);
         if (!(instance instanceof Error)) wrong.push(a.copy + " " + a.name + " is not an Error");
         for (const b of copies) {
           if ((instance instanceof b.cls) !== ancestors.has(b.name))
             wrong.push(a.copy + " " + a.name + (ancestors.has(b.name) ? " is not " : " is ") + "instanceof " + b.copy + " " + b.name);
         }
         if (new Error("x") instanceof a.cls || {} instanceof a.cls || null instanceof a.cls) wrong.push("a stranger is instanceof " + a.copy + " " + a.name);
       }
       const names = [...new Set(copies.map((c) => c.name))].sort();
       console.log(JSON.stringify({ copies: copies.length, names, unknown, wrong: wrong.slice(0, 40), wrongCount: wrong.length }));`,
    );
    const { stdout } = await exec(process.execPath, ["brands.mjs"], { cwd: withServer.dir, timeout: 30_000 });
    const result = JSON.parse(stdout) as {
      copies: number;
      names: string[];
      unknown: string[];
      wrong: string[];
    };
    expect(result.unknown).toEqual([]);
    expect(result.wrong).toEqual([]);
    // Every class in the table is exported by some entry, and each from both builds.
    expect(result.names).toEqual(Object.keys(parents).sort());
    expect(result.copies).toBeGreaterThanOrEqual(2 * result.names.length);
  });
});

describe("errors across the ESM and CJS copies", () => {
  it("instanceof recognises an error of the other copy, by class, and never a different class", async () => {
    const result = await node(
      "dual.mjs",
      `import { createRequire } from "node:module";
       const esm = await import("mcp-tasks");
       const cjs = createRequire(import.meta.url)("mcp-tasks");
       if (esm.TaskFailedError === cjs.TaskFailedError) throw new Error("expected two copies");
       const fromCjs = new cjs.TaskFailedError("t-1", { code: -32000, message: "boom" });
       const fromEsm = new esm.TaskCancelledError("t-2", true);
       console.log(JSON.stringify([
         fromCjs instanceof esm.TaskFailedError, fromCjs instanceof esm.TaskError, fromCjs instanceof esm.McpTasksError,
         fromCjs instanceof Error, fromCjs instanceof esm.TaskCancelledError, fromCjs instanceof esm.RpcError,
         fromEsm instanceof cjs.TaskCancelledError, fromEsm instanceof cjs.TaskError, fromEsm instanceof cjs.TaskFailedError,
         new Error("x") instanceof cjs.McpTasksError, null instanceof esm.McpTasksError,
       ]));`,
    );
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe("declarations for a strict consumer without @types/node or the DOM lib", () => {
  it("of the main entry compile with exactOptionalPropertyTypes and skipLibCheck off, as ESM and as CJS", async () => {
    const usage = (imports: string) => `${imports}
export async function use(url: string, signal: AbortSignal): Promise<string> {
  const client = await TaskClient.connect(url, { polling: { defaultIntervalMs: 500 }, cancelGraceMs: 1_000 });
  const handle = client.callTool("slow", { seconds: 1 }, { signal, timeoutMs: 5_000 });
  for await (const update of handle) if (update.terminal) break;
  const outcome: TaskOutcome = await handle.outcome();
  try {
    await handle;
  } catch (error) {
    if (error instanceof TaskFailedError) return String(error.code);
  }
  await client.close();
  return outcome.kind;
}
`;
    writeFileSync(
      join(consumer.dir, "esm.mts"),
      usage(`import { TaskClient, TaskFailedError, type TaskOutcome } from "mcp-tasks";`),
    );
    writeFileSync(
      join(consumer.dir, "cjs.cts"),
      // A CommonJS module: the import compiles to require(), typed by dist/index.d.cts.
      usage(`import { TaskClient, TaskFailedError, type TaskOutcome } from "mcp-tasks";`),
    );
    writeFileSync(
      join(consumer.dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          // No "DOM", no @types/node: the web platform types every runtime has (WebWorker), and disposables.
          lib: ["ES2022", "WebWorker", "ESNext.Disposable"],
          types: [],
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          noEmit: true,
        },
        files: ["esm.mts", "cjs.cts"],
      }),
    );
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const result = await exec(process.execPath, [tsc, "-p", consumer.dir], { cwd: consumer.dir }).then(
      ({ stdout }) => stdout,
      (error: { stdout?: string }) => error.stdout ?? "tsc failed",
    );
    expect(result).toBe("");
  }, 60_000);
});
