package dev.locksmith.tck;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A thread-safe log of the holds that a test saw: when each hold began and how it ended (released,
 * expired or lost), with its fencing token, for {@link HistoryChecker} to judge afterwards.
 *
 * <p>Record conservatively so that the checker never blames a correct store: record {@link
 * #acquired} after the acquire returned, and end a hold ({@link Hold#released()}) before calling
 * release. The recorded interval then lies inside the real one, so recorded holds overlap only if
 * real holds did. Times are {@link System#nanoTime()} values of this JVM.
 */
public final class LockHistory {

  /** The token of a hold whose store makes no fencing tokens. */
  public static final long NO_TOKEN = Long.MIN_VALUE;

  /** What happened to a hold. */
  public enum Kind {
    /** The hold began. */
    ACQUIRED,
    /** The holder released it. */
    RELEASED,
    /** Its lease ran out. */
    EXPIRED,
    /** The holder was told it was lost. */
    LOST
  }

  /**
   * One entry of the log.
   *
   * @param kind what happened
   * @param lock the lock name
   * @param holder a unique id of the hold (one per acquire)
   * @param shared whether the hold is a read (shared) hold, which may overlap other read holds
   * @param token the fencing token, or {@link #NO_TOKEN}
   * @param nanos when it happened, on {@link System#nanoTime()}
   */
  public record Event(
      Kind kind, String lock, String holder, boolean shared, long token, long nanos) {
    /** Checks the required parts. */
    public Event {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(lock, "lock");
      Objects.requireNonNull(holder, "holder");
    }
  }

  private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
  private final AtomicLong holders = new AtomicLong();

  /** Records that an exclusive (or write) hold on {@code lock} with {@code token} began now. */
  public Hold acquired(String lock, long token) {
    return record(lock, false, token);
  }

  /**
   * Records that a read hold on {@code lock} with {@code token} began now: it may overlap other
   * read holds, never an exclusive one.
   */
  public Hold acquiredShared(String lock, long token) {
    return record(lock, true, token);
  }

  private Hold record(String lock, boolean shared, long token) {
    String holder = "h" + holders.incrementAndGet();
    Hold hold = new Hold(lock, holder, shared, token);
    record(new Event(Kind.ACQUIRED, lock, holder, shared, token, System.nanoTime()));
    return hold;
  }

  /** Adds an event as given (for hand-made histories and for recorders of other shapes). */
  public void record(Event event) {
    events.add(Objects.requireNonNull(event, "event"));
  }

  /** Every event so far, in the order they were recorded. */
  public List<Event> events() {
    return new ArrayList<>(events);
  }

  /** One recorded hold; end it exactly once. */
  public final class Hold {
    private final String lock;
    private final String holder;
    private final boolean shared;
    private final long token;

    private Hold(String lock, String holder, boolean shared, long token) {
      this.lock = lock;
      this.holder = holder;
      this.shared = shared;
      this.token = token;
    }

    /** Records that the holder is about to release it (call before release). */
    public void released() {
      end(Kind.RELEASED, System.nanoTime());
    }

    /** Records that its lease ran out at {@code nanos}. */
    public void expired(long nanos) {
      end(Kind.EXPIRED, nanos);
    }

    /** Records that the holder learned now that it was lost. */
    public void lost() {
      end(Kind.LOST, System.nanoTime());
    }

    private void end(Kind kind, long nanos) {
      record(new Event(kind, lock, holder, shared, token, nanos));
    }
  }
}
