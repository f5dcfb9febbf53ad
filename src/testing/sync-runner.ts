/**
 * Runs a script on the `tools/call` request itself, without a task: the MRTR rounds before a task is
 * created, and the whole script when a call is not a task. Input steps become `input_required`
 * rounds, `complete` answers the call, `fail` answers with the JSON-RPC error. With `everyMs`, each
 * step waits one interval on the server's clock first, so a slow tool is slow without a task too.
 */
import { ProtocolError } from "./load-server-sdk.js";
import type { CallToolResult, InputRequests } from "../schema/index.js";
import type { Clock } from "./clock.js";
import { ErrorCode } from "./constants.js";
import type { Step, ToolCall } from "./steps.js";
import { resolveFromCall } from "./task-runner.js";
import type { Advance } from "./tool.js";

export type SyncOutcome =
  /** The call is answered with this result. */
  | { kind: "result"; result: CallToolResult }
  /** The step at `index` needs these answers first. */
  | { kind: "inputRequired"; index: number; inputRequests: InputRequests }
  /** The steps ran out without answering. */
  | { kind: "exhausted" };

export interface SyncEnvironment {
  clock: Clock;
  advance: Advance;
  /** Aborted when the request is cancelled or the server closes. */
  signal: AbortSignal;
}

function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ProtocolError(ErrorCode.internalError, "The request was aborted"));
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(new ProtocolError(ErrorCode.internalError, "The request was aborted"));
    };
    const handle = clock.setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const stop = () => reject(new ProtocolError(ErrorCode.internalError, "The request was aborted"));
    if (signal.aborted) stop();
    else signal.addEventListener("abort", stop, { once: true });
  });
}

/** Run `steps` from `start` until one answers the call, asks for input, or the steps run out. */
export async function runSynchronously(
  steps: readonly Step[],
  start: number,
  call: ToolCall,
  env: SyncEnvironment,
): Promise<SyncOutcome> {
  const tickMs = env.advance === "poll" ? 0 : env.advance.everyMs;
  for (let index = start; index < steps.length; index++) {
    const current = steps[index] as Step;
    const ticks = current.kind === "idle" ? current.ticks : 1;
    if (tickMs > 0) await sleep(env.clock, tickMs * ticks, env.signal);
    switch (current.kind) {
      case "input":
        return { kind: "inputRequired", index, inputRequests: resolveFromCall(current.requests, call) };
      case "complete":
        return { kind: "result", result: resolveFromCall(current.result, call) };
      case "fail": {
        const error = resolveFromCall(current.error, call);
        throw new ProtocolError(error.code, error.message, error.data);
      }
      case "cancelled":
        throw new ProtocolError(
          ErrorCode.internalError,
          current.statusMessage ?? "The tool cancelled the call",
        );
      case "stall":
        return waitForAbort(env.signal);
      default:
        // Status, interval, TTL, poll-error and raw steps only shape a task; without one they pass.
        break;
    }
  }
  return { kind: "exhausted" };
}
