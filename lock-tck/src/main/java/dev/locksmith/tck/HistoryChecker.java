package dev.locksmith.tck;

import dev.locksmith.tck.LockHistory.Event;
import dev.locksmith.tck.LockHistory.Kind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Judges a {@link LockHistory}: no two holds of one lock by different holders overlap (unless both
 * are shared read holds), and fencing tokens strictly increase from one exclusive hold to the next.
 *
 * <p>A hold lasts from its {@code ACQUIRED} event to its first end event ({@code RELEASED}, {@code
 * EXPIRED} or {@code LOST}); a hold that never ended lasts for ever. Malformed histories (an end
 * without a start, two ends, an end before the start) are violations too, so a broken recorder
 * cannot hide a broken store.
 */
public final class HistoryChecker {

  private HistoryChecker() {}

  /** One hold reconstructed from its events. */
  private record Interval(
      String lock, String holder, boolean shared, long token, long start, long end) {
    boolean overlaps(Interval o) {
      return start - o.end < 0 && o.start - end < 0;
    }

    @Override
    public String toString() {
      return holder
          + (shared ? " (read)" : "")
          + (token == LockHistory.NO_TOKEN ? "" : " token " + token)
          + " ["
          + start
          + ", "
          + (end == Long.MAX_VALUE ? "never ended" : end)
          + "]";
    }
  }

  /** Every rule the history breaks, one sentence each; empty when it is consistent. */
  public static List<String> violations(LockHistory history) {
    return violations(history.events());
  }

  /** Every rule {@code events} break, one sentence each; empty when they are consistent. */
  public static List<String> violations(List<Event> events) {
    List<String> problems = new ArrayList<>();
    Map<String, Event> starts = new LinkedHashMap<>();
    Map<String, Event> ends = new LinkedHashMap<>();
    for (Event e : events) {
      if (e.kind() == Kind.ACQUIRED) {
        if (starts.putIfAbsent(e.holder(), e) != null) {
          problems.add("hold " + e.holder() + " was acquired twice");
        }
        continue;
      }
      Event start = starts.get(e.holder());
      if (start == null) {
        problems.add("hold " + e.holder() + " ended (" + e.kind() + ") but never began");
      } else if (ends.putIfAbsent(e.holder(), e) != null) {
        problems.add("hold " + e.holder() + " ended twice");
      } else if (e.nanos() - start.nanos() < 0) {
        problems.add("hold " + e.holder() + " ended before it began");
      }
    }
    Map<String, List<Interval>> byLock = new LinkedHashMap<>();
    for (Event s : starts.values()) {
      Event end = ends.get(s.holder());
      long endNanos = end == null ? Long.MAX_VALUE : end.nanos();
      byLock
          .computeIfAbsent(s.lock(), k -> new ArrayList<>())
          .add(new Interval(s.lock(), s.holder(), s.shared(), s.token(), s.nanos(), endNanos));
    }
    for (Map.Entry<String, List<Interval>> entry : byLock.entrySet()) {
      List<Interval> holds = entry.getValue();
      holds.sort(Comparator.comparingLong(Interval::start));
      checkOverlaps(entry.getKey(), holds, problems);
      checkTokens(entry.getKey(), holds, problems);
    }
    return problems;
  }

  /**
   * Throws if the history breaks a rule.
   *
   * @throws AssertionError listing every violation
   */
  public static void assertConsistent(LockHistory history) {
    List<String> problems = violations(history);
    if (!problems.isEmpty()) {
      throw new AssertionError(
          "the lock history is inconsistent ("
              + problems.size()
              + " violations):\n  "
              + String.join("\n  ", problems.subList(0, Math.min(20, problems.size()))));
    }
  }

  private static void checkOverlaps(String lock, List<Interval> holds, List<String> problems) {
    for (int i = 0; i < holds.size(); i++) {
      Interval a = holds.get(i);
      for (int j = i + 1; j < holds.size(); j++) {
        Interval b = holds.get(j);
        if (b.start() - a.end() >= 0 && a.end() != Long.MAX_VALUE) {
          // Sorted by start: once b starts after a ended, later ones do too.
          break;
        }
        if (a.overlaps(b) && !(a.shared() && b.shared())) {
          problems.add("two owners held lock '" + lock + "' at once: " + a + " and " + b);
        }
      }
    }
  }

  private static void checkTokens(String lock, List<Interval> holds, List<String> problems) {
    Interval previous = null;
    for (Interval h : holds) {
      if (h.shared() || h.token() == LockHistory.NO_TOKEN) {
        continue;
      }
      if (previous != null && h.token() <= previous.token()) {
        problems.add(
            "fencing token of lock '"
                + lock
                + "' did not increase: "
                + previous
                + " was followed by "
                + h);
      }
      previous = h;
    }
  }
}
