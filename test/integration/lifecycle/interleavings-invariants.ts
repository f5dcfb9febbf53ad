/**
 * Invariants of the lifecycle property that read the wire (the fault proxy's exchange log), not the client's
 * code. Each returns the violations it found, as sentences, so a failing run says what went wrong where.
 *
 * The cadence invariant: a task's `tasks/get` never starts sooner than the server's `pollIntervalMs` after the
 * end of its previous `tasks/get`, except for the one-shots docs/cancellation-and-time-limits.md lists ("When a task is polled"). Which one-shots
 * a run allowed is derived from what the log shows happened, case by case from that list:
 *
 * 1. a `CreateTaskResult` that is not `working`, and 2. the first poll of a task followed by reference: both are a
 *    task's first poll, which no gap rule constrains here;
 * 3. the handle's `tasks/cancel` was acknowledged, refused, or ran out of retries: a `tasks/cancel` for the task
 *    that the server answered (acknowledged or refused), or the last attempt when every one failed; a failed
 *    attempt followed by another is a retry and allows nothing;
 * 4. a `tasks/update` carrying answers was acknowledged: one the server answered with a result;
 * 5. a listen acknowledged a task it did not push before: an acknowledgement naming a task that no stream pushed
 *    (never acknowledged, or its stream broke, or a later acknowledgement left it out); a task carried into a
 *    merged listen is pushed already and allows nothing; nor does a task whose last stream broke before it proved
 *    itself (decision 10: it is polled at its interval until a stream has stayed open `provenAfterMs` after
 *    its acknowledgement, and then it has nothing to catch up on);
 * 6. the listen stream pushing a task broke after it had proved itself: the server's side of a listen whose
 *    acknowledgement named the task ended without its final answer at least `provenAfterMs` after that
 *    acknowledgement, while that stream was the one carrying the task;
 * 7. a 2025-11-25 `notifications/tasks/status`: not reachable here (the property speaks the tasks extension).
 *
 * Each event allows one poll to come early: the first poll that starts after it, or the one right after that
 * (the client may have heard of the event only once the first was in flight or had answered, because its timer
 * fired first or the event loop was busy while the proxy passed the event on; it then owes one more as soon as the
 * first answers, or sends it at once when it hears of the event). The second is not held to a time bound: the
 * proxy runs in the client's process, and under load the client reads an acknowledgement the proxy passed on a
 * hundred milliseconds and more later, so how soon after the first's answer it goes out says nothing the log can
 * check (seen: 53 to 160 ms on a 2-core machine at load 10). No poll answers more than one event, and a poll
 * that came early for an event uses it up, so a second early poll after it still fails.
 */
import { failed, type Exchange } from "./fault-proxy.js";

/** Timers may fire a millisecond early, and the proxy stamps times on its own: tolerate this much. */
const SLACK_MS = 2;
/**
 * Whether a stream had proved itself is read from the proxy's clock, which sees the acknowledgement before the
 * client and the break before the client: a stream this close to `provenAfterMs` may have counted either way, and
 * is given the benefit of the doubt both ways (it may allow a one-shot, and it does not put its tasks on probation).
 */
const PROOF_DOUBT_MS = 25;

const ended = (exchange: Exchange): exchange is Exchange & { endedAt: number } =>
  exchange.endedAt !== undefined;

/** The one-shot events the log shows for each task: when each happened, and which documented case it is. */
export function oneShotEvents(
  exchanges: readonly Exchange[],
  provenAfterMs: number,
): Map<string, Array<{ at: number; why: string }>> {
  const events = new Map<string, Array<{ at: number; why: string }>>();
  const add = (taskId: string, at: number, why: string) => {
    const list = events.get(taskId) ?? [];
    list.push({ at, why });
    events.set(taskId, list);
  };

  // 3: cancels. Answered by the server (acknowledged or refused), or the last failed attempt (out of retries).
  const cancels = exchanges.filter((each) => each.method === "tasks/cancel" && each.taskId !== undefined);
  for (const [index, cancel] of cancels.entries()) {
    if (!ended(cancel)) continue;
    const retried = cancels.slice(index + 1).some((later) => later.taskId === cancel.taskId);
    if (cancel.end === "answered" || !retried)
      add(
        cancel.taskId as string,
        cancel.endedAt,
        cancel.end === "answered" ? "cancel answered" : "cancel gave up",
      );
  }

  // 4: acknowledged input answers.
  for (const update of exchanges) {
    if (update.method !== "tasks/update" || update.taskId === undefined || !ended(update)) continue;
    if (update.end === "answered" && update.body.includes('"result"'))
      add(update.taskId, update.endedAt, "tasks/update acknowledged");
  }

  // 5 and 6: acknowledgements and broken streams, in the order they passed the proxy.
  const listens = exchanges.filter((each) => each.method === "subscriptions/listen");
  const moments: Array<{ at: number; listen: Exchange; ack?: string[] }> = [];
  for (const listen of listens) {
    for (const ack of listen.acks) moments.push({ at: ack.at, listen, ack: ack.taskIds });
    if (listen.end === "broke" && ended(listen)) moments.push({ at: listen.endedAt, listen });
  }
  moments.sort((a, b) => a.at - b.at);
  /** The stream carrying each task now. */
  const pushedBy = new Map<string, Exchange>();
  /** Tasks whose last stream broke before it proved itself (surely: doubtful cases stay out). */
  const probation = new Set<string>();
  const ackedAt = (listen: Exchange) => listen.acks[0]?.at ?? Number.POSITIVE_INFINITY;
  for (const { at, listen, ack } of moments) {
    // A stream that has stayed open `provenAfterMs` since its acknowledgement proved itself: its tasks are forgiven.
    for (const [taskId, stream] of pushedBy)
      if (at - ackedAt(stream) >= provenAfterMs - PROOF_DOUBT_MS) probation.delete(taskId);
    if (ack !== undefined) {
      for (const taskId of ack) {
        if (!pushedBy.has(taskId) && !probation.has(taskId))
          add(taskId, at, "listen acknowledged a task it did not push");
        pushedBy.set(taskId, listen);
      }
      // Asked for but left out: polled from now on (not a one-shot), and no longer pushed.
      for (const taskId of listen.listenTaskIds) if (!ack.includes(taskId)) pushedBy.delete(taskId);
      continue;
    }
    const openFor = at - ackedAt(listen);
    for (const [taskId, stream] of [...pushedBy]) {
      if (stream !== listen) continue;
      pushedBy.delete(taskId);
      if (openFor >= provenAfterMs - PROOF_DOUBT_MS)
        add(taskId, at, "listen stream broke after it proved itself");
      if (openFor < provenAfterMs - PROOF_DOUBT_MS) probation.add(taskId);
    }
  }
  for (const list of events.values()) list.sort((a, b) => a.at - b.at);
  return events;
}

/**
 * Polls sooner than `intervalOf(taskId)` after the task's previous poll ended, with no one-shot event to allow
 * them. `intervalOf` gives the server's interval for a task (undefined: not checked).
 */
export function cadenceViolations(
  exchanges: readonly Exchange[],
  intervalOf: (taskId: string) => number | undefined,
  provenAfterMs: number,
): string[] {
  const events = oneShotEvents(exchanges, provenAfterMs);
  const polls = new Map<string, Exchange[]>();
  for (const each of exchanges) {
    if (each.method !== "tasks/get" || each.taskId === undefined) continue;
    polls.set(each.taskId, [...(polls.get(each.taskId) ?? []), each]);
  }
  const violations: string[] = [];
  for (const [taskId, list] of polls) {
    const interval = intervalOf(taskId);
    if (interval === undefined) continue;
    const unused = [...(events.get(taskId) ?? [])];
    for (const [index, poll] of list.entries()) {
      const previous = list[index - 1];
      if (previous?.endedAt === undefined) continue; // the first poll is not held to a gap
      const gap = poll.startedAt - previous.endedAt;
      if (gap >= interval - SLACK_MS) continue;
      // An early poll: the oldest event not yet answered that this poll may answer. The client hears of an event
      // after the proxy passed it on, and only then sends the poll it asks for: the first poll after the event,
      // or, when that one was already on its way (or had answered) by the time the client heard, the next one.
      const allowing = unused.find((event) => {
        const first = list.findIndex((each) => each.startedAt >= event.at);
        if (first === index) return true;
        return first === index - 1 && event.at <= previous.endedAt!;
      });
      if (allowing !== undefined) {
        unused.splice(unused.indexOf(allowing), 1);
        continue;
      }
      const after = !failed(previous)
        ? "answered"
        : previous.end === "answered"
          ? "was answered with an error"
          : `failed (${previous.end ?? "still open"})`;
      violations.push(
        `task ${taskId}: tasks/get #${index + 1} went out ${gap.toFixed(1)} ms after #${index} ${after}, ` +
          `sooner than the server's ${interval} ms, and no one-shot allowed it ` +
          `(one-shots seen: ${describe(events.get(taskId), list[0]?.startedAt ?? 0)}; ` +
          `polls: ${list.map((each) => `+${(each.startedAt - (list[0]?.startedAt ?? 0)).toFixed(1)}..+${((each.endedAt ?? NaN) - (list[0]?.startedAt ?? 0)).toFixed(1)} ${each.end ?? "open"}`).join(", ")}; ` +
          `listens: ${listensOf(exchanges, taskId, list[0]?.startedAt ?? 0)})`,
      );
    }
  }
  return violations;
}

/** The listens that asked for `taskId`, as `+start..+end how (acknowledged at +t)`, relative to `origin`. */
function listensOf(exchanges: readonly Exchange[], taskId: string, origin: number): string {
  const at = (time: number | undefined) => `+${((time ?? NaN) - origin).toFixed(1)}`;
  const listens = exchanges.filter(
    (each) => each.method === "subscriptions/listen" && each.listenTaskIds.includes(taskId),
  );
  if (listens.length === 0) return "none";
  return listens
    .map((each) => {
      const ack = each.acks[0];
      const acked =
        ack === undefined
          ? "never acknowledged"
          : `acknowledged at ${at(ack.at)}${ack.taskIds.includes(taskId) ? "" : " without it"}`;
      return `${at(each.startedAt)}..${at(each.endedAt)} ${each.end ?? "open"} (${acked})`;
    })
    .join(", ");
}

function describe(events: Array<{ at: number; why: string }> | undefined, origin: number): string {
  if (events === undefined || events.length === 0) return "none";
  return events.map((event) => `${event.why} at +${(event.at - origin).toFixed(1)} ms`).join(", ");
}

/** Task ids in the answers to `tools/call` the proxy delivered in full before `until`, with when. */
export function deliveredTaskIds(
  exchanges: readonly Exchange[],
  until: number,
): Array<{ taskId: string; at: number }> {
  const ids = new Map<string, number>();
  for (const call of exchanges) {
    if (call.method !== "tools/call" || call.end !== "answered" || !ended(call) || call.endedAt > until)
      continue;
    for (const match of call.body.matchAll(/"taskId"\s*:\s*"([^"]+)"/g))
      ids.set(match[1] as string, call.endedAt);
  }
  return [...ids].map(([taskId, at]) => ({ taskId, at }));
}

/** Ids the client sent a `tasks/cancel` for. */
export function cancelledIds(exchanges: readonly Exchange[]): Set<string> {
  return new Set(
    exchanges.flatMap((each) => (each.method === "tasks/cancel" && each.taskId ? [each.taskId] : [])),
  );
}

/**
 * When the client first heard the server's final word `cancelled` for `taskId` after asking to cancel it: the end
 * of the first `tasks/get` answered with the task `cancelled` that started after a `tasks/cancel` for it went
 * out (the reference server answers `tasks/cancel` with an empty result). Undefined when it never did.
 */
export function cancelConfirmedAt(exchanges: readonly Exchange[], taskId: string): number | undefined {
  const asked = exchanges.find((each) => each.method === "tasks/cancel" && each.taskId === taskId);
  if (asked === undefined) return undefined;
  const answer = exchanges.find(
    (each) =>
      each.method === "tasks/get" &&
      each.taskId === taskId &&
      each.startedAt >= asked.startedAt &&
      each.end === "answered" &&
      /"status"\s*:\s*"cancelled"/.test(each.body),
  );
  return answer?.endedAt;
}
