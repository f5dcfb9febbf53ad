/**
 * 2025-11-25 `notifications/tasks/status` routing: a `working` update is shown as it is; any other status is only
 * announced to the task's follower, whose cadence owner decides whether it is worth a poll (it is not when the
 * handle shows that status already, so a server repeating itself brings no poll forward).
 */
import { describe, expect, it } from "vitest";
import type { DetailedTask } from "../../../src/schema/index.js";
import { followLegacyStatus, type StatusFollower } from "../../../src/eras/legacy/status.js";
import type { RpcChannel } from "../../../src/session/types.js";

type Listener = (method: string, params: Record<string, unknown>) => void;

function channel(): { rpc: RpcChannel; send(params: Record<string, unknown>): void } {
  let listener: Listener | undefined;
  const rpc = {
    onNotification: (next: Listener) => {
      listener = next;
      return () => (listener = undefined);
    },
  } as unknown as RpcChannel;
  return { rpc, send: (params) => listener?.("notifications/tasks/status", params) };
}

function task(status: string): Record<string, unknown> {
  const at = "2026-07-28T10:00:00Z";
  return { taskId: "t-1", status, createdAt: at, lastUpdatedAt: at, ttl: null };
}

describe("2025-11-25 status notifications", () => {
  it("shows a working update and announces every other status to the follower", () => {
    const { rpc, send } = channel();
    const seen: string[] = [];
    const follower: StatusFollower = {
      observe: (snapshot: DetailedTask) => void seen.push(`observe ${snapshot.status}`),
      statusNotified: (status) => void seen.push(`notified ${status}`),
    };
    const warnings: string[] = [];
    const stop = followLegacyStatus(rpc, { warn: (message) => void warnings.push(message) }, (taskId) =>
      taskId === "t-1" ? follower : undefined,
    );
    send(task("working"));
    send(task("input_required"));
    send(task("completed"));
    send({ ...task("completed"), taskId: "someone-else" });
    send({ taskId: "t-1" }); // not a task: a warning, nothing else
    expect(seen).toEqual(["observe working", "notified input_required", "notified completed"]);
    expect(warnings).toHaveLength(1);
    stop();
    send(task("failed"));
    expect(seen).toHaveLength(3);
  });
});
