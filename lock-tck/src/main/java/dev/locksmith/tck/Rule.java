package dev.locksmith.tck;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The kit's rules: one constant per rule, with its number, its promise group and its sentence.
 *
 * <p>This list is the kit's table of contents, like the Reactive Streams TCK's {@code
 * PublisherVerificationRules}: each rule is one test method named {@code rule_<group>_<n>_…} in the
 * interface of its group ({@link MutualExclusionRules} …), {@code locksmith tck --rules} prints it,
 * and the kit's own tests check that every rule here has exactly one test and every test a rule. A
 * rule marked {@code [kind]} runs once per kind of hold (exclusive, read, write).
 */
public enum Rule {
  R1_1(1, 1, "while one client holds a lock, another client's tryAcquire finds it taken"),
  R1_2(1, 2, "two acquires from one client are two owners and exclude each other"),
  R1_3(
      1,
      3,
      "8 threads on 3 clients incrementing an unguarded counter inside the lock lose no update, and"
          + " no two holds overlap"),
  R1_4(1, 4, "locks with different names are independent"),
  R1_5(1, 5, "lock(name) and readWriteLock(name) are independent namespaces"),
  R1_6(
      1,
      6,
      "clients with different key prefixes hold the same name at once, and clients with the same"
          + " prefix exclude each other"),
  R1_7(
      1,
      7,
      "while one name is held and waited for on two clients, names whose hash codes equal it on"
          + " both clients are taken at once (no client-side or store-side striping by hash)"),
  R1_8(
      1,
      8,
      "clients whose key prefix and name differ never share a lock, also when prefix and name"
          + " concatenate to the same text (\"a\"+\"bc\" and \"ab\"+\"c\"; separators such as"
          + " \"lock/\", \"lock:\" moved between prefix and name); a store may refuse such a"
          + " prefix instead"),
  R1_9(
      1,
      9,
      "clients racing for fresh names: at most one wins each race, no attempt fails (a store"
          + " absorbs the races of its own bookkeeping, such as a shared counter created twice), and"
          + " a race nobody won leaves the name free"),

  R2_1(
      2,
      1,
      "[kind] after a lease expired and a rival took the lock, the old holder's release throws"
          + " LeaseLostException and does not free the rival's hold"),
  R2_2(
      2,
      2,
      "[kind] after a lease expired and a rival took the lock, the old holder's extend throws"
          + " LeaseLostException and the rival keeps the lock"),
  R2_3(2, 3, "releasing a lease twice is a no-op the second time"),
  R2_4(2, 4, "a lease can be released from another thread than the one that took it"),
  R2_5(2, 5, "closing a client releases the leases it holds at once"),
  R2_6(
      2,
      6,
      "[kind] a lease that expired with no rival is lost: its release throws LeaseLostException and"
          + " leaves the lock free"),
  R2_7(
      2,
      7,
      "a lock granted while its client closes is given back by the close: acquires racing close()"
          + " never leave a lock held until its lease ends"),

  R3_1(
      3,
      1,
      "[kind] a crashed holder (no release, no renewal) frees the lock within its lease plus the"
          + " timing slack (SESSION_BOUND stores: when its session ends)"),
  R3_2(
      3,
      2,
      "[kind] a lease without auto-renew that runs out is lost: onLost fires once, isValid turns"
          + " false, and release throws LeaseLostException"),
  R3_3(3, 3, "[kind] once a lease ran out, a rival acquires the lock within the timing slack"),
  R3_4(
      3,
      4,
      "expiresAt() is at most acquire start plus the lease time (Instant.MAX exactly for"
          + " SESSION_BOUND stores)"),
  R3_5(3, 5, "a lease time below the store's minimum lease is refused"),
  R3_6(3, 6, "extend() on a lease without auto-renew keeps the lock past its first expiry"),
  R3_7(
      3,
      7,
      "[kind] a crashed holder keeps the lock for at least 90% of its lease and loses it within the"
          + " lease plus the slack, for a lease longer than the slack and not a whole number of the"
          + " store's granularity"),
  R3_8(
      3,
      8,
      "[kind] after several renewals, a crashed holder keeps the lock for at least 90% of a lease"
          + " from its last renewal and loses it within the lease plus the slack"),
  R3_9(3, 9, "isValid() turns false by the lease's end on the holder's own clock"),

  R4_1(
      4,
      1,
      "[kind] auto-renew keeps a lock through three lease lengths and no rival can take it"
          + " meanwhile"),
  R4_2(
      4,
      2,
      "[kind] a renewal that keeps failing until the lease runs out (store paused) marks the lease"
          + " lost and fires onLost"),
  R4_3(4, 3, "a listener registered after the loss is told at once"),
  R4_4(4, 4, "a released lease leaves no renewal or expiry timer behind"),
  R4_5(
      4,
      5,
      "[kind] a hold deleted in the store by an outside actor is reported to its holder: onLost"
          + " fires and isValid() turns false within one renewal interval plus the slack (within"
          + " the slack where the store pushes, SESSION_BOUND)"),
  R4_6(
      4,
      6,
      "a renewal that reaches the store after the lease was released does not bring the hold back:"
          + " the lock is free for a rival at once and stays free"),

  R5_1(5, 1, "fencing tokens strictly increase across successive holders on different clients"),
  R5_2(5, 2, "a holder that took over an expired lock gets a greater token than the expired one"),
  R5_3(5, 3, "a nested hold of the same owner has its first hold's token"),
  R5_4(5, 4, "fencing tokens keep increasing across a kill and restart of the store"),
  R5_5(
      5,
      5,
      "fencingToken() is refused with UnsupportedCapabilityException exactly when the store does"
          + " not declare FENCING"),
  R5_6(5, 6, "DURABLE_FENCING is declared only together with FENCING"),

  R6_1(
      6,
      1,
      "the same owner acquiring again gets a nested hold, and the lock frees only when every hold is"
          + " released"),
  R6_2(6, 2, "one owner on two clients shares its holds, and different owners never do"),
  R6_3(
      6,
      3,
      "withOwner is refused with UnsupportedCapabilityException exactly when the store does not"
          + " declare REENTRANCY"),
  R6_4(
      6,
      4,
      "the asLock() view is reentrant per thread: getHoldCount counts, and the lock frees at the"
          + " last unlock"),
  R6_5(
      6,
      5,
      "asLock() excludes other threads of the same client, and unlock() by a thread that does not"
          + " hold it throws IllegalMonitorStateException"),
  R6_6(6, 6, "asLock().newCondition() is refused"),

  R7_1(7, 1, "tryAcquire() on a held lock never blocks (each call well under the slack)"),
  R7_2(
      7,
      2,
      "acquire(timeout) on a held lock throws LockTimeoutException no sooner than the timeout and"
          + " within timeout plus the slack; tryAcquire(wait) returns empty"),
  R7_3(7, 3, "a waiter wakes within the slack after the holder releases"),
  R7_4(
      7,
      4,
      "an interrupted acquire throws InterruptedException and leaves no orphan hold, lease or"
          + " renewal timer behind"),
  R7_5(
      7,
      5,
      "an acquire interrupted just as the lock is released either holds a lease or leaves the lock"
          + " free, over many rounds"),
  R7_6(7, 6, "an acquire on an already interrupted thread fails at once, holding nothing"),
  R7_7(
      7,
      7,
      "tryAcquire() and asLock().tryLock() on an interrupted thread take a free lock, find a held"
          + " one busy, and leave the interrupt flag set"),
  R7_8(
      7,
      8,
      "on a store that pushes releases, a waiter with a 30 s backoff wakes within the slack after"
          + " the holder releases (the push wakes it, not its polling)"),
  R7_9(
      7,
      9,
      "on a store that keeps a queue, waiters get the lock in the order they asked: three waiters"
          + " that queued one after another hold it one after another in that order"),
  R7_10(
      7,
      10,
      "on a store that keeps a queue, a waiter that gave up leaves it: the waiter behind it gets"
          + " the lock within the slack after the holder releases"),
  R7_11(
      7,
      11,
      "a waiter whose own connection to the store is cut is told within the store timeout plus the"
          + " lease (session) and the slack, not at the end of its wait (also when it sleeps on a"
          + " release push or in a queue)"),

  R8_1(8, 1, "readers on different clients hold the read lock at once"),
  R8_2(
      8,
      2,
      "a writer excludes readers and other writers, and readers exclude writers until the last"
          + " reader releases"),
  R8_3(
      8,
      3,
      "a writer waiting behind a stream of overlapping readers gets the lock within a bound (no"
          + " writer starvation)"),
  R8_4(8, 4, "a writer that gave up waiting does not keep new readers out"),
  R8_5(
      8,
      5,
      "readWriteLock is refused with UnsupportedCapabilityException exactly when the store does not"
          + " declare READ_WRITE"),
  R8_6(
      8,
      6,
      "2 writers and 4 readers on 3 clients never overlap a writer with anyone (history checker)"),
  R8_7(
      8,
      7,
      "a write tryAcquire() that finds the lock taken leaves no waiting-writer mark: once the"
          + " holder releases, new readers get in at once"),
  R8_8(
      8,
      8,
      "while a writer holds, readers of the writer's own client are refused too (only the same"
          + " owner may read under its write lock)"),

  R9_1(
      9,
      1,
      "lockAll in opposite orders from two clients never deadlocks over many rounds, and no two"
          + " holds overlap"),
  R9_2(
      9,
      2,
      "lockAll is all or nothing: when one lock is taken, tryAcquire and acquire(timeout) hold none"
          + " of them"),

  R10_1(10, 1, "invalid lock names are refused with IllegalArgumentException"),
  R10_2(10, 2, "names with metacharacters are data: they lock, exclude and round-trip"),
  R10_3(
      10,
      3,
      "names that naive key encodings conflate are different locks (case, ':' vs '_', NFC vs NFD,"
          + " trailing space, prefix, characters outside Latin-1)"),
  R10_4(10, 4, "null names and name lists are refused with NullPointerException"),
  R10_5(10, 5, "lockAll with no names or a repeated name is refused"),
  R10_6(10, 6, "non-positive, over-long and null lease times are refused, naming leaseTime"),
  R10_7(10, 7, "negative, over-long and null waits are refused, naming the wait"),
  R10_8(10, 8, "a bad extend leaves the lease as it was"),
  R10_9(10, 9, "blank, over-long, control-character and null owners are refused, naming the owner"),
  R10_10(10, 10, "bad client options (backoff, key prefix) are refused, naming them"),
  R10_11(10, 11, "a closed client refuses new locks with IllegalStateException"),
  R10_12(
      10,
      12,
      "durations too large for any clock (Long.MAX_VALUE seconds, ChronoUnit.FOREVER) are refused"
          + " with IllegalArgumentException at every entry point"),
  R10_13(
      10,
      13,
      "options() reports the options in force: the owner prefix and the store's key prefix are"
          + " set"),

  R11_1(
      11,
      1,
      "[kind] on a paused store, tryAcquire and acquire throw LockStoreException within the store"
          + " timeout plus the slack, never a lease; after resume the same client acquires again"),
  R11_2(
      11,
      2,
      "on a killed store, acquire throws LockStoreException within the bound; after a restart the"
          + " same client acquires again by itself"),
  R11_3(
      11,
      3,
      "[kind] a holder is told through onLost when an outage outlasts its lease, and its lease is"
          + " no longer valid"),
  R11_4(
      11,
      4,
      "a store failure during an acquire never leaves the caller holding anything: after recovery"
          + " another client takes the lock"),
  R11_5(
      11,
      5,
      "a release that fails because the store is down throws LockStoreException, and once the"
          + " store is back the lock frees within the recovery time plus the slack, not at its"
          + " lease's end or its session's; then both clients take it again"),

  R12_1(
      12,
      1,
      "[kind] the store acquires, reads, and releases a hold for an explicit owner: one hold, the"
          + " owner in read(), RELEASED, then FREE"),
  R12_2(
      12,
      2,
      "[kind] the store refuses every other owner: other clients, the same client, and owner ids"
          + " that share a prefix with the holder's (busy, NOT_HELD, false), and the hold is"
          + " intact"),
  R12_3(
      12,
      3,
      "[kind] release and extend by an owner whose hold expired with no takeover answer NOT_HELD"
          + " and false"),
  R12_4(
      12,
      4,
      "[kind] release and extend by an owner whose hold expired and passed to a rival answer"
          + " NOT_HELD and false, and the rival's hold is intact"),
  R12_5(
      12,
      5,
      "[kind] an owner that acquires again after its own hold expired gets a fresh hold (one hold,"
          + " and a greater token where the store fences), not a nested hold on the dead record"),
  R12_6(
      12,
      6,
      "[kind] extend sets the lease to now plus the lease time; it does not add to what was left"),
  R12_7(12, 7, "read() reports a lock held by readers as held, with the number of readers"),
  R12_8(
      12,
      8,
      "[kind] during an outage every store operation throws (extendAll too); none answers busy,"
          + " FREE, RELEASED, NOT_HELD, true or false"),
  R12_9(
      12,
      9,
      "long names that differ only in their last or first character, also in multibyte text, are"
          + " independent locks"),
  R12_10(
      12,
      10,
      "[kind] a nested acquire by the holder adds a hold with the same token and renews the lease;"
          + " release counts the holds down"),
  R12_11(
      12,
      11,
      "a busy answer's retry hint is no longer than the holder's lease and no shorter than what is"
          + " left of it, less the store's granularity and the slack"),
  R12_12(
      12,
      12,
      "a writer that found readers keeps new readers out until it acquires or withdraws, and"
          + " withdraw lets them in"),
  R12_13(
      12,
      13,
      "each reader's hold ends on its own lease: a reader that stopped extending expires while"
          + " another keeps extending"),
  R12_14(
      12,
      14,
      "a waiting-writer mark ends with its writer's lease: a writer that found readers and then"
          + " died (never acquired nor withdrew) keeps new readers out no longer than its lease plus"
          + " the slack"),
  R12_15(
      12,
      15,
      "[kind] extendAll checks each extension's owner on its own: it extends the owner's holds,"
          + " answers false for another owner's hold and for a free name and changes neither, and"
          + " answers in the batch's order"),

  R13_1(
      13,
      1,
      "a holder in another process excludes this process, and this process's hold excludes the"
          + " other"),
  R13_2(
      13,
      2,
      "a holder process that is killed (SIGKILL) frees the lock within its lease plus the slack"
          + " (SESSION_BOUND stores: when its session ends)"),
  R13_3(
      13,
      3,
      "a holder process stopped (SIGSTOP) past its lease loses the lock to a rival with a greater"
          + " token, and once continued it is told the lease is lost: no double grant"),
  R13_4(
      13,
      4,
      "two processes with the same owner prefix are still different owners and exclude each"
          + " other"),
  R13_5(
      13,
      5,
      "a holder process of a SESSION_BOUND store stopped (SIGSTOP) past its session while a rival"
          + " takes the lock is told when it continues: isValid() asked first is false, its"
          + " release at once throws LeaseLostException, and onLost fires"),

  R14_1(
      14,
      1,
      "an acquire whose reply was lost after the store took the lock leaves no hold behind within"
          + " the store timeout plus the slack"),
  R14_2(14, 2, "tryAcquire() makes exactly one store call, on a free and on a held lock"),
  R14_3(14, 3, "lockAll shares one deadline across its locks"),
  R14_4(
      14,
      4,
      "acquire(wait) never overruns its wait by more than the slack, even with the longest"
          + " backoff"),
  R14_5(
      14,
      5,
      "isHeldByCurrentThread() is false on every other thread while one thread holds the lock"),
  R14_6(14, 6, "a waiter asks again by the store's retry hint, not at its own longer backoff"),
  R14_7(
      14,
      7,
      "isValid() turns false at the lease's end even while a renewal hangs, and onLost fires within"
          + " the lease plus the slack"),
  R14_8(
      14,
      8,
      "a renewal that finds the hold gone fires onLost within one renewal interval plus the slack,"
          + " not at the local expiry"),

  R15_1(
      15,
      1,
      "the store keeps nothing per name: after 1,000 names are acquired and released (nested,"
          + " read, write, waited for) and a crashed holder's names ran out, the entries under the"
          + " prefix fall to the store's shared few within its cleanup delay plus the slack"),
  R15_2(
      15,
      2,
      "fencing tokens keep rising after the store drops everything idle (as allkeys-lru would):"
          + " for a name held before, a name never held, and the writers and readers of a"
          + " read-write lock");

  private final int group;
  private final int number;
  private final String sentence;

  Rule(int group, int number, String sentence) {
    this.group = group;
    this.number = number;
    this.sentence = sentence;
  }

  /** The rule's id, such as {@code 3.7}. */
  public String id() {
    return group + "." + number;
  }

  /** The promise group the rule belongs to. */
  public RuleGroup group() {
    return RuleGroup.of(group);
  }

  /** What the rule checks, in one sentence. */
  public String sentence() {
    return sentence;
  }

  /** Whether the rule runs once per kind of hold (exclusive, read, write). */
  public boolean perKind() {
    return sentence.startsWith("[kind] ");
  }

  /** {@code Rule 3.7: …}, as the kit's test names show it. */
  public String title() {
    return "Rule " + id() + ": " + (perKind() ? sentence.substring(7) : sentence);
  }

  /**
   * The rule a kit test method tests, from its name ({@code rule_3_7_heldAtLeast…} is rule 3.7).
   */
  public static Optional<Rule> ofMethod(String methodName) {
    String[] parts = methodName.split("_");
    if (parts.length < 3 || !parts[0].equals("rule")) {
      return Optional.empty();
    }
    try {
      return Optional.of(valueOf("R" + parts[1] + "_" + parts[2]));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** The rule with id {@code id}, such as {@code "3.7"}. */
  public static Rule ofId(String id) {
    return Arrays.stream(values())
        .filter(r -> r.id().equals(id))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no kit rule " + id));
  }

  /**
   * Every rule as printable text, grouped by promise (what {@code locksmith tck --rules} shows).
   */
  public static String table() {
    StringBuilder sb = new StringBuilder();
    for (RuleGroup g : RuleGroup.values()) {
      sb.append(g.number()).append(". ").append(g.title()).append('\n');
      List<Rule> rules =
          Arrays.stream(values()).filter(r -> r.group() == g).collect(Collectors.toList());
      for (Rule r : rules) {
        sb.append(String.format(Locale.ROOT, "  %-6s %s%n", r.id(), r.sentence()));
      }
    }
    return sb.toString();
  }
}
