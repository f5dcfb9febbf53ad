/**
 * Event-loop delay over a run with holes in it. `perf_hooks.monitorEventLoopDelay` cannot skip a span: after
 * `disable()` / `enable()` its next sample still contains the whole gap, so a forced GC for a heap mark would
 * show up as loop delay. Instead each stretch between forced GCs gets a fresh monitor (whose first sample
 * has nothing before it) and the stretches are combined: count-weighted mean, overall max, and the p99 of
 * the mixture of their distributions.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import type { Distribution } from "./stats.js";

const NS_PER_MS = 1e6;

export class LoopDelay {
  private readonly finished: IntervalHistogram[] = [];
  private current: IntervalHistogram | undefined;

  constructor(private readonly resolutionMs: number) {}

  /** Starts (or restarts after `pause`) a stretch of sampling. */
  resume(): void {
    this.current = monitorEventLoopDelay({ resolution: this.resolutionMs });
    this.current.enable();
  }

  /** Ends the current stretch; nothing is sampled until `resume`. */
  pause(): void {
    if (!this.current) return;
    this.current.disable();
    this.finished.push(this.current);
    this.current = undefined;
  }

  summary(): Distribution {
    const stretches = this.finished.filter((histogram) => histogram.count > 0);
    const count = stretches.reduce((sum, histogram) => sum + histogram.count, 0);
    if (count === 0) return { count: 0, mean: 0, p99: 0, max: 0 };
    const mean = stretches.reduce((sum, histogram) => sum + histogram.mean * histogram.count, 0) / count;
    const max = Math.max(...stretches.map((histogram) => histogram.max));
    return {
      count,
      mean: mean / NS_PER_MS,
      p99: mixturePercentile(stretches, 0.99, count) / NS_PER_MS,
      max: max / NS_PER_MS,
    };
  }
}

/** The smallest delay below which `quantile` of all samples of all stretches fall. */
function mixturePercentile(stretches: IntervalHistogram[], quantile: number, count: number): number {
  const cdfs = stretches.map((histogram) => ({
    weight: histogram.count / count,
    points: [...histogram.percentiles.entries()]
      .map(([percent, value]) => ({ fraction: percent / 100, value }))
      .sort((a, b) => a.value - b.value),
  }));
  const candidates = [...new Set(cdfs.flatMap((cdf) => cdf.points.map((point) => point.value)))].sort(
    (a, b) => a - b,
  );
  for (const value of candidates) {
    let below = 0;
    for (const cdf of cdfs) {
      let fraction = 0;
      for (const point of cdf.points) if (point.value <= value) fraction = Math.max(fraction, point.fraction);
      below += cdf.weight * fraction;
    }
    if (below >= quantile) return value;
  }
  return candidates[candidates.length - 1] ?? 0;
}
