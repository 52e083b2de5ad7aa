package dev.locksmith.cli.internal;

import java.util.Arrays;

/** Latency samples in nanoseconds, sorted once, read as percentiles. */
public final class Percentiles {

  private final long[] sorted;

  /** Copies and sorts {@code samples}. */
  public Percentiles(long[] samples) {
    this.sorted = samples.clone();
    Arrays.sort(sorted);
  }

  /** The {@code p}-th percentile (0..100), nearest rank; 0 when there are no samples. */
  public long nanos(double p) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
  }

  /** The same in milliseconds. */
  public double millis(double p) {
    return nanos(p) / 1e6;
  }

  /** How many samples. */
  public int count() {
    return sorted.length;
  }

  /** The sorted samples, for plotting. */
  public long[] sorted() {
    return sorted.clone();
  }
}
