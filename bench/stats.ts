/**
 * Small statistics used by the benchmark: a distribution summary for one run (mean, p50, p99, max) and the
 * across-rounds summary the table prints (median with min–max).
 */

export interface Distribution {
  count: number;
  mean: number;
  /** Absent in results saved before it was measured. */
  p50?: number;
  p99: number;
  max: number;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** Mean, median and 99th percentile (nearest rank) and maximum of a sample; zeros for an empty sample. */
export function distribution(sample: Float64Array): Distribution {
  if (sample.length === 0) return { count: 0, mean: 0, p50: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(sample).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  const rank = (share: number) => Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1);
  return {
    count: sorted.length,
    mean: sum / sorted.length,
    p50: sorted[rank(0.5)]!,
    p99: sorted[rank(0.99)]!,
    max: sorted[sorted.length - 1]!,
  };
}

/** Median, minimum and maximum of per-round values. */
export function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}
