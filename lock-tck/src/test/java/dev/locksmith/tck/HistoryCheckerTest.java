package dev.locksmith.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.tck.LockHistory.Event;
import dev.locksmith.tck.LockHistory.Kind;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The checker against hand-made histories: it must catch every bad one and pass the good ones. */
class HistoryCheckerTest {

  private static final long NO = LockHistory.NO_TOKEN;

  private static Event acq(String holder, long token, long at) {
    return new Event(Kind.ACQUIRED, "L", holder, false, token, at);
  }

  private static Event read(String holder, long at) {
    return new Event(Kind.ACQUIRED, "L", holder, true, NO, at);
  }

  private static Event end(Kind kind, String holder, long at) {
    return new Event(kind, "L", holder, false, NO, at);
  }

  @Test
  @DisplayName("back-to-back holds with rising tokens are consistent")
  void goodHistory() {
    List<Event> events =
        List.of(
            acq("a", 1, 0),
            end(Kind.RELEASED, "a", 10),
            acq("b", 2, 10),
            end(Kind.EXPIRED, "b", 20),
            acq("c", 5, 25),
            end(Kind.LOST, "c", 30));
    assertThat(HistoryChecker.violations(events)).isEmpty();
  }

  @Test
  @DisplayName("two exclusive holds that overlap are a violation")
  void overlap() {
    List<Event> events =
        List.of(
            acq("a", 1, 0),
            acq("b", 2, 5),
            end(Kind.RELEASED, "a", 10),
            end(Kind.RELEASED, "b", 20));
    assertThat(HistoryChecker.violations(events))
        .singleElement()
        .asString()
        .contains("two owners held lock 'L' at once");
  }

  @Test
  @DisplayName("a hold that never ended overlaps every later hold")
  void neverEnded() {
    List<Event> events = List.of(acq("a", 1, 0), acq("b", 2, 100), end(Kind.RELEASED, "b", 110));
    assertThat(HistoryChecker.violations(events)).hasSize(1);
  }

  @Test
  @DisplayName("a hold that starts while an expired-later hold is still valid is a violation")
  void overlapWithExpiry() {
    List<Event> events =
        List.of(
            acq("a", 1, 0),
            end(Kind.EXPIRED, "a", 50),
            acq("b", 2, 49),
            end(Kind.RELEASED, "b", 60));
    assertThat(HistoryChecker.violations(events)).hasSize(1);
  }

  @Test
  @DisplayName("a token that does not increase (equal or lower) is a violation")
  void tokensMustRise() {
    List<Event> equal =
        List.of(
            acq("a", 7, 0),
            end(Kind.RELEASED, "a", 10),
            acq("b", 7, 20),
            end(Kind.RELEASED, "b", 30));
    List<Event> lower =
        List.of(
            acq("a", 7, 0),
            end(Kind.RELEASED, "a", 10),
            acq("b", 3, 20),
            end(Kind.RELEASED, "b", 30));
    assertThat(HistoryChecker.violations(equal))
        .singleElement()
        .asString()
        .contains("did not increase");
    assertThat(HistoryChecker.violations(lower))
        .singleElement()
        .asString()
        .contains("did not increase");
  }

  @Test
  @DisplayName("holds without tokens are not judged on tokens")
  void noTokens() {
    List<Event> events =
        List.of(
            acq("a", NO, 0),
            end(Kind.RELEASED, "a", 10),
            acq("b", NO, 20),
            end(Kind.RELEASED, "b", 30));
    assertThat(HistoryChecker.violations(events)).isEmpty();
  }

  @Test
  @DisplayName("read holds may overlap each other but not a write hold")
  void sharedHolds() {
    List<Event> readers =
        List.of(
            read("r1", 0),
            read("r2", 5),
            end(Kind.RELEASED, "r1", 10),
            end(Kind.RELEASED, "r2", 12));
    assertThat(HistoryChecker.violations(readers)).isEmpty();
    List<Event> writerAmongReaders =
        List.of(
            read("r1", 0),
            acq("w", 1, 5),
            end(Kind.RELEASED, "r1", 10),
            end(Kind.RELEASED, "w", 12));
    assertThat(HistoryChecker.violations(writerAmongReaders)).hasSize(1);
  }

  @Test
  @DisplayName("different locks may be held at once")
  void differentLocks() {
    List<Event> events =
        List.of(
            new Event(Kind.ACQUIRED, "L1", "a", false, 1, 0),
            new Event(Kind.ACQUIRED, "L2", "b", false, 1, 1),
            new Event(Kind.RELEASED, "L1", "a", false, 1, 10),
            new Event(Kind.RELEASED, "L2", "b", false, 1, 10));
    assertThat(HistoryChecker.violations(events)).isEmpty();
  }

  @Test
  @DisplayName(
      "malformed histories are violations: an end without a start, two ends, end before start")
  void malformed() {
    assertThat(HistoryChecker.violations(List.of(end(Kind.RELEASED, "x", 5)))).hasSize(1);
    assertThat(
            HistoryChecker.violations(
                List.of(acq("a", 1, 0), end(Kind.RELEASED, "a", 5), end(Kind.LOST, "a", 6))))
        .hasSize(1);
    assertThat(HistoryChecker.violations(List.of(acq("a", 1, 10), end(Kind.RELEASED, "a", 5))))
        .isNotEmpty();
    assertThat(HistoryChecker.violations(List.of(acq("a", 1, 0), acq("a", 2, 1)))).isNotEmpty();
  }

  @Test
  @DisplayName("assertConsistent throws an AssertionError listing the violations; recorder works")
  void recorderAndAssertion() {
    LockHistory history = new LockHistory();
    LockHistory.Hold a = history.acquired("L", 1);
    LockHistory.Hold b = history.acquired("L", 2);
    a.released();
    b.released();
    assertThatThrownBy(() -> HistoryChecker.assertConsistent(history))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("two owners held lock 'L' at once");
    LockHistory fine = new LockHistory();
    LockHistory.Hold c = fine.acquired("L", 1);
    c.released();
    LockHistory.Hold d = fine.acquired("L", 2);
    d.lost();
    HistoryChecker.assertConsistent(fine);
    assertThat(fine.events()).hasSize(4);
  }
}
