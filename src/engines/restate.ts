/**
 * `mcp-tasks/restate`: call an MCP tool from inside a Restate handler so that it runs once, however often the
 * invocation is retried or replayed (decision 21: the engine holds the ref). The call is one `ctx.run` step whose
 * journaled value is the task's ref, so a replay gets the same ref back instead of calling the tool; the task is
 * then followed in journaled waits (`ctx.run` steps of at most `sliceMs` each, `client.task(ref)` inside), so the
 * journal grows by one entry per slice, not one per poll. Loads `@restatedev/restate-sdk` (an optional peer
 * dependency) and the core by the package's name.
 *
 * @module mcp-tasks/restate
 */
import { CancelledError, TerminalError, type Context } from "@restatedev/restate-sdk";
import type { CallToolOptions, CallToolResult, TaskClient, TaskHandle, TaskRef, TaskStatus } from "mcp-tasks";
import { endingOf } from "./endings.js";

/** The client to call through: a connected `TaskClient`, or a function that returns one (called per step). */
export type HandlerToolClient = TaskClient | (() => TaskClient | Promise<TaskClient>);

/** Options of {@link callToolInHandler}. */
export interface HandlerToolOptions extends Pick<
  CallToolOptions,
  "meta" | "inputHandlers" | "legacyTasks" | "taskTtlMs"
> {
  /**
   * The longest one journaled wait lasts (default 30 s): the task is followed in steps of at most this long, each
   * one journal entry with the task's status. Shorter slices keep Restate's inactivity timeout from aborting an
   * attempt; longer ones write fewer entries.
   */
  sliceMs?: number;
}

/** What the call step journals: the task's ref, or the result of a call the server answered at once. */
type CallStep = { ref: TaskRef } | { result: CallToolResult };
/** What a follow step journals: the result, or the status the task had when the slice ended. */
type FollowStep = { result: CallToolResult } | { status: TaskStatus | null };

const DEFAULT_SLICE_MS = 30_000;

/**
 * Calls the tool `name` from inside a Restate handler and resolves with its result; a retried or replayed
 * invocation follows the task its journal names instead of calling the tool again.
 *
 * - **The call** is the step `tools/call <name>`: it journals the task's ref (without unacknowledged input
 *   answers) the moment the server names the task, or the result of a call answered at once.
 * - **Following** is a series of `follow task` steps, each waiting at most `sliceMs` with `client.task(ref)` and
 *   journaling the result or the status reached.
 * - **Cancellation** of the invocation: one `tasks/cancel` for the task (a journaled step of its own), then the
 *   handler ends with Restate's `CancelledError`. Cancelled while the call step runs, the handler first awaits the
 *   call's answer, so a task the server created meanwhile is cancelled too.
 * - **Endings**: a completed task returns its `CallToolResult`. A transient transport fault, a refused credential
 *   or a closed client throws a retryable error inside the step, which Restate retries (the retry follows the same
 *   task); every other ending throws `TerminalError` whose message starts with the mcp-tasks error's name
 *   (`TaskFailedError: …`) and whose `metadata` has `type` and `taskId`.
 */
export async function callToolInHandler(
  ctx: Context,
  client: HandlerToolClient,
  name: string,
  args: Record<string, unknown> = {},
  options: HandlerToolOptions = {},
): Promise<CallToolResult> {
  const { sliceMs = DEFAULT_SLICE_MS, meta, ...callOptions } = options;
  const taskClient = async () => (typeof client === "function" ? await client() : client);
  // Set once the invocation's cancellation interrupted the call step. A call step that runs after that (it had not
  // started, or a retry finds it unfinished in the journal) journals a refusal instead of calling a tool whose
  // invocation is cancelled.
  let cancelled = false;
  const callStep = ctx.run<CallStep>(`tools/call ${name}`, async () => {
    if (cancelled) throw new TerminalError("cancelled before the call was sent", { errorCode: 409 });
    const handle = (await taskClient()).callTool(name, args, { ...callOptions, meta });
    const ref = await handle.ref;
    if (ref === undefined) return { result: await resultOf(handle) };
    handle.detach(); // followed by the next steps, which a replay runs too
    const { pendingInputAnswers: _unsent, ...kept } = ref;
    return { ref: kept };
  });
  let called: CallStep;
  try {
    called = await callStep;
  } catch (error) {
    if (!(error instanceof CancelledError)) throw error;
    // Restate rejects the awaited step at once, while its `tools/call` may still be out: the server may create
    // the task after this. The step still ends and journals the ref; `map` awaits that value without racing the
    // cancellation again, and the task it names is cancelled like one being followed.
    cancelled = true;
    // Through Restate's logger (silent on replay): an operator sees why a cancelled invocation still waits.
    ctx.console.info(`mcp-tasks: invocation cancelled during tools/call ${name}; awaiting the call's answer`);
    const ended = await callStep.map((value, failure) => (failure === undefined ? value : undefined));
    if (ended !== undefined && "ref" in ended) await cancelTask(ctx, taskClient, ended.ref);
    throw error;
  }
  if ("result" in called) return called.result;
  const ref = called.ref;
  let following: TaskHandle | undefined;
  try {
    for (;;) {
      const step = await ctx.run<FollowStep>("follow task", async () => {
        const handle = (await taskClient()).task(ref, { ...callOptions, timeoutMs: sliceMs });
        following = handle;
        const outcome = await handle.outcome();
        if (outcome.kind === "completed") return { result: outcome.result };
        if (outcome.kind === "deadline_exceeded") return { status: handle.status ?? null };
        throw stepError(outcome.error, outcome.taskId);
      });
      if ("result" in step) return step.result;
    }
  } catch (error) {
    if (!(error instanceof CancelledError)) throw error;
    following?.detach();
    await cancelTask(ctx, taskClient, ref);
    throw error;
  }
}

/** Sends `tasks/cancel` for `ref` once: a journaled step of its own, so a replay does not send it again. */
async function cancelTask(ctx: Context, taskClient: () => Promise<TaskClient>, ref: TaskRef): Promise<void> {
  await ctx.run("tasks/cancel", async () => {
    await (await taskClient()).cancel(ref).catch((failure: unknown) => {
      // A task already over, or a server that refuses: nothing a retry would change.
      if (endingOf(failure).retryable) throw failure;
    });
  });
}

/** The result of a handle, or the step's error for any other ending. */
async function resultOf(handle: TaskHandle): Promise<CallToolResult> {
  const outcome = await handle.outcome();
  if (outcome.kind === "completed") return outcome.result;
  throw stepError(outcome.error, outcome.taskId);
}

/** What a step throws: a plain error Restate retries, or `TerminalError` (see src/engines/endings.ts). */
function stepError(error: unknown, taskId: string | undefined): Error {
  const ending = endingOf(error, taskId);
  if (ending.retryable) return error instanceof Error ? error : new Error(ending.message);
  const metadata: Record<string, string> = { type: ending.type };
  if (ending.details.taskId !== undefined) metadata.taskId = ending.details.taskId;
  return new TerminalError(`${ending.type}: ${ending.message}`, { metadata });
}
