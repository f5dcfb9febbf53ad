/**
 * What the runs of the lifecycle property (interleavings.property.test.ts) actually reached. A scenario only
 * plans a cancel, a fault or a close; in real time a task may end first, and the plan then proves nothing. Each
 * run records what happened, each category says which runs count for it, and the property fails when a category
 * is never reached, so a generator or a harness that stops reaching a state cannot pass unnoticed.
 *
 * A new category: count what it needs in `RunObservations` (where the property file records it) and add its test
 * to `CATEGORIES`.
 */

/** What one run saw happen, as opposed to what its scenario planned. */
export interface RunObservations {
  /** `cancel()` or an abort while the handle knew its task id and had not ended: a cancel racing the polls. */
  cancelsWhilePolling: number;
  /** `input` events the handles emitted: the client saw the server ask. */
  inputs: number;
  /** Requests the fault proxy broke. */
  faults: number;
  /** `client.close()` called by an action while a handle was still open. */
  closesWhileOpen: number;
  /** Whether the run's real-time budget ran out before every handle had ended. */
  cutByBudget: boolean;
}

export function noObservations(): RunObservations {
  return { cancelsWhilePolling: 0, inputs: 0, faults: 0, closesWhileOpen: 0, cutByBudget: false };
}

/** The interesting states, and which runs reached each. */
export const CATEGORIES = {
  "cancel while polling": (run: RunObservations) => run.cancelsWhilePolling > 0,
  input: (run: RunObservations) => run.inputs > 0,
  fault: (run: RunObservations) => run.faults > 0,
  close: (run: RunObservations) => run.closesWhileOpen > 0,
} satisfies Record<string, (run: RunObservations) => boolean>;

export type Category = keyof typeof CATEGORIES;

/** Counts, over many runs, how many reached each category. */
export class Coverage {
  private runs = 0;
  private cut = 0;
  private readonly reached = new Map<Category, number>();

  add(run: RunObservations): void {
    this.runs += 1;
    if (run.cutByBudget) this.cut += 1;
    for (const category of Object.keys(CATEGORIES) as Category[]) {
      if (CATEGORIES[category](run)) this.reached.set(category, (this.reached.get(category) ?? 0) + 1);
    }
  }

  /** Adds another coverage's counts to this one. */
  merge(other: Coverage): void {
    this.runs += other.runs;
    this.cut += other.cut;
    for (const [category, count] of other.reached)
      this.reached.set(category, (this.reached.get(category) ?? 0) + count);
  }

  /** The categories no run reached. */
  missing(): Category[] {
    return (Object.keys(CATEGORIES) as Category[]).filter((category) => !this.reached.has(category));
  }

  /** One line: how many runs, how many reached each category, how many the budget cut short. */
  report(): string {
    const counts = (Object.keys(CATEGORIES) as Category[])
      .map((category) => `${category} ${this.reached.get(category) ?? 0}`)
      .join(", ");
    return `${this.runs} runs reached: ${counts}; ${this.cut} cut short by the time budget`;
  }
}
