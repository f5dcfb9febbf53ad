/**
 * A worker process for the crash tests: `node --import tsx crash-child.ts <url> <dir> <mode>`.
 * `call` calls the `job` tool and kills itself with SIGKILL at the point named by `KILL_AT`; `resume` resumes
 * every stored task, waits for each, and prints one JSON line: the results and the input keys it was asked.
 */
import { TaskClient } from "mcp-tasks";
import { fileStore } from "mcp-tasks/store";

const [url, dir, mode] = process.argv.slice(2) as [string, string, string];
const killAt = process.env.KILL_AT ?? "";
const die = (point: string) => {
  if (killAt === point) process.kill(process.pid, "SIGKILL");
};

const asked: string[] = [];
const store = fileStore(dir);
const client = await TaskClient.connect(url, {
  store: {
    put: async (ref) => {
      await store.put(ref);
      if (ref.answeredInputKeys.length > 0) die("answered"); // the answer is acknowledged and stored
    },
    remove: (ref) => store.remove(ref),
    list: (server) => store.list(server),
    open: () => store.open(),
    close: () => store.close(),
  },
  polling: { defaultIntervalMs: 50, minIntervalMs: 20, jitter: 0 },
  retry: { minTimeoutMs: 200, maxTimeoutMs: 400, retries: 8 },
  inputHandlers: {
    elicitation: (_request, context) => {
      asked.push(context.key);
      die("input"); // the user is being asked
      if (process.env.HOLD_INPUT) {
        console.log("asked"); // and never answers: the test kills this process
        return new Promise(() => undefined);
      }
      return Promise.resolve({ action: "accept", content: { ok: true } });
    },
  },
});
client.on("task", () => die("created"));

if (mode === "call") {
  const handle = client.callTool("job", {});
  handle.on("retry", () => die("backoff"));
  handle.on("update", (update) => {
    if (update.terminal) die("terminal"); // the terminal snapshot is in, the handle has not settled
  });
  await handle.outcome();
  // Not killed: report like `resume` so the test sees why.
  console.log(JSON.stringify({ finished: true, asked }));
} else {
  const handles = await client.resume();
  const outcomes = await Promise.all(handles.map((handle) => handle.outcome()));
  const results = outcomes.map((outcome) =>
    outcome.kind === "completed" ? outcome.result : { kind: outcome.kind, error: String(outcome.error) },
  );
  console.log(JSON.stringify({ results, asked }));
}
await client.close();
