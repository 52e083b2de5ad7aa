package dev.locksmith.cli.internal;

/**
 * A resource that accepts a write only with a fencing token above the highest it has seen: the
 * other half of fencing, which protects the resource from a holder whose lease ended while it was
 * paused. It also counts the writes it refused, each of which a resource without fencing would have
 * let land.
 */
public final class FencedResource {

  private long highest;
  private int accepted;
  private int refused;

  /** Accepts the write if {@code token} is above every token seen so far. */
  public synchronized boolean write(long token) {
    if (token > highest) {
      highest = token;
      accepted++;
      return true;
    }
    refused++;
    return false;
  }

  /** Writes that landed. */
  public synchronized int accepted() {
    return accepted;
  }

  /** Stale writes refused: each would have landed without fencing. */
  public synchronized int refused() {
    return refused;
  }
}
