package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.DistributedLock;
import dev.locksmith.DistributedReadWriteLock;
import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.ReleaseOutcome;
import dev.locksmith.spi.StoreFailure;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The JDBC store's own promises, run on every database by a subclass: SQL-specific behaviour that
 * the kit does not reach (the table, the database clock, Spring transactions, names as data).
 */
abstract class JdbcStoreBehaviour {

  final List<AutoCloseable> toClose = new ArrayList<>();

  /** A lock URI of the database under test. */
  abstract String lockUri();

  /** A plain (unpooled) data source of the database under test. */
  abstract DataSource dataSource();

  LockClient client(LockOptions options) {
    LockClient c = LockClient.open(lockUri(), options);
    toClose.add(c);
    return c;
  }

  /** A client with {@code uriOptions} ({@code key=value&…}) added to the lock URI. */
  LockClient client(LockOptions options, String uriOptions) {
    String uri = lockUri() + (lockUri().contains("?") ? "&" : "?") + uriOptions;
    LockClient c = LockClient.open(uri, options);
    toClose.add(c);
    return c;
  }

  private static LockOptions prefixed(String keyPrefix) {
    return keyPrefix.isEmpty()
        ? LockOptions.defaults()
        : LockOptions.builder().keyPrefix(keyPrefix).build();
  }

  static Duration lease30() {
    return Duration.ofSeconds(30);
  }

  LockClient client() {
    return client(LockOptions.defaults());
  }

  JdbcLockStore store() {
    JdbcLockStore s = new JdbcLockStore(dataSource());
    toClose.add(s);
    return s;
  }

  static String uniqueName(String base) {
    return base + "-" + UUID.randomUUID();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  @Test
  @DisplayName("Only one of many threads on two clients is ever inside; tokens rise with each")
  void mutualExclusionUnderContention() throws Exception {
    LockClient a = client();
    LockClient b = client();
    String name = uniqueName("contended");
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicLong lastToken = new AtomicLong();
    AtomicInteger tokenRegressions = new AtomicInteger();
    AtomicInteger entries = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        DistributedLock lock = (t % 2 == 0 ? a : b).lock(name);
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 25; i++) {
                    try (Lease lease = lock.acquire(Duration.ofSeconds(30))) {
                      if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                      }
                      if (lease.fencingToken() <= lastToken.getAndSet(lease.fencingToken())) {
                        tokenRegressions.incrementAndGet();
                      }
                      entries.incrementAndGet();
                      inside.decrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(entries).hasValue(200);
    assertThat(overlaps).hasValue(0);
    assertThat(tokenRegressions).hasValue(0);
  }

  @Test
  @DisplayName("Release deletes the row; the next holder's token is higher all the same")
  void releaseDeletesTheRowAndTheTokenRises() throws Exception {
    String name = uniqueName("durable");
    LockClient a = client();
    long first;
    try (Lease lease = a.lock(name).tryAcquire().orElseThrow()) {
      first = lease.fencingToken();
      assertThat(rowVersion(name)).isEqualTo(first);
    }
    assertThat(rowsContaining(name)).isZero();
    try (Lease lease = client().lock(name).tryAcquire().orElseThrow()) {
      assertThat(lease.fencingToken()).isGreaterThan(first);
    }
  }

  @Test
  @DisplayName(
      "An owner re-entering gets the same token, and the lock frees after the last release")
  void reentrancyCountsHolds() {
    JdbcLockStore store = store();
    LockKey key = LockKey.exclusive(uniqueName("reentrant"));
    Acquisition first = store.tryAcquire(key, "owner-1", Duration.ofSeconds(30));
    Acquisition second = store.tryAcquire(key, "owner-1", Duration.ofSeconds(30));
    assertThat(first.isAcquired()).isTrue();
    assertThat(second.isAcquired()).isTrue();
    assertThat(second.token()).isEqualTo(first.token());
    assertThat(second.holds()).isEqualTo(2);
    assertThat(store.tryAcquire(key, "owner-2", Duration.ofSeconds(30)).isAcquired()).isFalse();
    assertThat(store.release(key, "owner-1")).isEqualTo(ReleaseOutcome.HOLD_DECREMENTED);
    assertThat(store.read(key).locked()).isTrue();
    assertThat(store.release(key, "owner-1")).isEqualTo(ReleaseOutcome.RELEASED);
    assertThat(store.read(key).locked()).isFalse();
    Acquisition next = store.tryAcquire(key, "owner-2", Duration.ofSeconds(30));
    assertThat(next.token()).isGreaterThan(first.token());
  }

  @Test
  @DisplayName("A release or extend after expiry does not touch the next holder's lock")
  void lateReleaseIsNotHeld() {
    JdbcLockStore store = store();
    LockKey key = LockKey.exclusive(uniqueName("late"));
    assertThat(store.tryAcquire(key, "old", Duration.ofMillis(300)).isAcquired()).isTrue();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> store.tryAcquire(key, "new", Duration.ofSeconds(30)).isAcquired());
    assertThat(store.release(key, "old")).isEqualTo(ReleaseOutcome.NOT_HELD);
    assertThat(store.extend(key, "old", Duration.ofSeconds(30))).isFalse();
    assertThat(store.read(key).owner()).isEqualTo("new");
  }

  @Test
  @DisplayName("Clients whose clocks are off by minutes can neither steal nor lose a lock")
  void expiryIsJudgedOnTheDatabaseClock() throws Exception {
    Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10));
    Clock behind = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10));
    LockClient early = client(LockOptions.builder().clock(ahead).build());
    LockClient late = client(LockOptions.builder().clock(behind).build());
    String name = uniqueName("skew");
    Duration lease = Duration.ofSeconds(2);

    // The holder's clock runs behind: were expiry judged on its clock, it would hold 10 minutes.
    Lease held = late.lock(name).withLeaseTime(lease).withAutoRenew(false).acquire();
    // The contender's clock runs ahead: were expiry judged on its clock, the lock looks expired.
    assertThat(early.lock(name).tryAcquire()).isEmpty();
    Thread.sleep(500); // well inside the lease, so the holder must still hold it
    assertThat(early.lock(name).tryAcquire()).isEmpty();
    held.extend(lease);
    assertThat(held.isValid()).isTrue();
    // Once the lease has really run out on the database, the contender gets it.
    Lease next =
        early.lock(name).tryAcquire(Duration.ofSeconds(10)).orElseThrow(AssertionError::new);
    assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    next.release();
  }

  @Test
  @DisplayName(
      "Many readers share a read-write lock; a writer waits for them and shuts new ones out")
  void readWrite() throws Exception {
    JdbcLockStore store = store();
    String name = uniqueName("rw");
    LockKey read = new LockKey(name, LockMode.READ);
    LockKey write = new LockKey(name, LockMode.WRITE);
    Duration lease = Duration.ofSeconds(30);
    assertThat(store.tryAcquire(read, "r1", lease).isAcquired()).isTrue();
    assertThat(store.tryAcquire(read, "r2", lease).isAcquired()).isTrue();
    assertThat(store.read(read).holds()).isEqualTo(2);
    // A writer finds readers: busy, and now marked as waiting.
    assertThat(store.tryAcquire(write, "w", lease).isAcquired()).isFalse();
    assertThat(store.tryAcquire(read, "r3", lease).isAcquired()).isFalse();
    // Readers already in may re-enter.
    assertThat(store.tryAcquire(read, "r1", lease).holds()).isEqualTo(2);
    store.readWrite().orElseThrow().withdraw(write, "w");
    assertThat(store.tryAcquire(read, "r3", lease).isAcquired()).isTrue();
    assertThat(store.release(read, "r1")).isEqualTo(ReleaseOutcome.HOLD_DECREMENTED);
    for (String r : List.of("r1", "r2", "r3")) {
      assertThat(store.release(read, r)).isEqualTo(ReleaseOutcome.RELEASED);
    }
    Acquisition writer = store.tryAcquire(write, "w", lease);
    assertThat(writer.isAcquired()).isTrue();
    assertThat(store.tryAcquire(read, "r1", lease).isAcquired()).isFalse();
    assertThat(store.tryAcquire(write, "w2", lease).isAcquired()).isFalse();
    // The exclusive lock of the same name is another namespace.
    assertThat(store.tryAcquire(LockKey.exclusive(name), "x", lease).isAcquired()).isTrue();
    assertThat(store.release(write, "w")).isEqualTo(ReleaseOutcome.RELEASED);
    Acquisition next = store.tryAcquire(write, "w2", lease);
    assertThat(next.token()).isGreaterThan(writer.token());
    assertThat(store.extend(write, "w2", lease)).isTrue();
    assertThat(store.release(read, "r1")).isEqualTo(ReleaseOutcome.NOT_HELD);
  }

  @Test
  @DisplayName("Through the API, a read-write lock admits two readers at once and then one writer")
  void readWriteThroughTheClient() throws Exception {
    DistributedReadWriteLock a = client().readWriteLock(uniqueName("rw-api"));
    DistributedReadWriteLock b = client().readWriteLock(a.name());
    try (Lease r1 = a.readLock().acquire(Duration.ofSeconds(5));
        Lease r2 = b.readLock().acquire(Duration.ofSeconds(5))) {
      assertThat(b.writeLock().tryAcquire()).isEmpty();
    }
    try (Lease w = b.writeLock().acquire(Duration.ofSeconds(5))) {
      assertThat(a.readLock().tryAcquire()).isEmpty();
    }
  }

  @Test
  @DisplayName(
      "A lock taken inside a Spring transaction that rolls back stays taken and is seen at once")
  void springRollbackDoesNotUndoALock() {
    DataSource plain = dataSource();
    // The proxy hands out the transaction's connection; the store must not use it.
    JdbcLockStore store = new JdbcLockStore(new TransactionAwareDataSourceProxy(plain));
    LockClient inside = LockClient.of(store, LockOptions.defaults());
    toClose.add(inside);
    LockClient outside = client();
    String name = uniqueName("tx");
    TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(plain));
    Lease lease =
        tx.execute(
            status -> {
              Lease l = inside.lock(name).tryAcquire().orElseThrow();
              // Another process sees the lock before the transaction ends.
              assertThat(outside.lock(name).tryAcquire()).isEmpty();
              status.setRollbackOnly();
              return l;
            });
    assertThat(outside.lock(name).tryAcquire()).isEmpty();
    assertThat(lease.isValid()).isTrue();
    lease.release();
    assertThat(outside.lock(name).tryAcquire()).isPresent();
  }

  @Test
  @DisplayName(
      "A lock taken inside a Spring transaction on the store's own data source outlives its"
          + " rollback")
  void springTransactionOnTheSameDataSourceIsSetAside() {
    DataSource plain = dataSource();
    LockClient inside = LockClient.of(new JdbcLockStore(plain), LockOptions.defaults());
    toClose.add(inside);
    LockClient outside = client();
    String name = uniqueName("same-ds-tx");
    TransactionTemplate tx = new TransactionTemplate(new DataSourceTransactionManager(plain));
    Lease lease =
        tx.execute(
            status -> {
              Lease l = inside.lock(name).tryAcquire().orElseThrow();
              assertThat(outside.lock(name).tryAcquire()).isEmpty();
              status.setRollbackOnly();
              return l;
            });
    assertThat(outside.lock(name).tryAcquire()).isEmpty();
    lease.release();
    assertThat(outside.lock(name).tryAcquire()).isPresent();
  }

  @Test
  @DisplayName("One pooled connection is enough: no operation holds two at once")
  void oneConnectionPerOperation() throws Exception {
    String uri = lockUri() + (lockUri().contains("?") ? "&" : "?") + "locksmith.poolSize=1";
    LockClient a = LockClient.open(uri);
    toClose.add(a);
    DistributedReadWriteLock rw = a.readWriteLock(uniqueName("one-connection"));
    // The first write attempt creates the writer row in auto-commit, then locks it in a
    // transaction: with a second connection held meanwhile, the pool of one would run dry.
    try (Lease w = rw.writeLock().acquire(Duration.ofSeconds(5))) {
      assertThat(w.isValid()).isTrue();
    }
    try (Lease r = rw.readLock().acquire(Duration.ofSeconds(5))) {
      assertThat(rw.writeLock().tryAcquire()).isEmpty();
    }
    try (Lease x = a.lock(uniqueName("one-connection-x")).acquire(Duration.ofSeconds(5))) {
      x.extend(Duration.ofSeconds(10));
      assertThat(x.isValid()).isTrue();
    }
  }

  @Test
  @DisplayName("A statement blocked by another transaction's row lock ends at the query timeout")
  void blockedStatementEndsAtTheQueryTimeout() throws Exception {
    JdbcLockStore store =
        new JdbcLockStore(
            dataSource(),
            JdbcLockStoreOptions.builder().queryTimeout(Duration.ofSeconds(1)).build());
    toClose.add(store);
    LockKey key = LockKey.exclusive(uniqueName("blocked"));
    assertThat(store.tryAcquire(key, "a", Duration.ofSeconds(30)).isAcquired()).isTrue();
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement lockRow =
          c.prepareStatement("UPDATE " + store.table() + " SET holds = holds WHERE name = ?")) {
        lockRow.setString(1, key.name());
        assertThat(lockRow.executeUpdate()).isEqualTo(1);
      }
      long start = System.nanoTime();
      // On a second thread, so that a statement the store leaves unbounded fails the test
      // instead of hanging it.
      ExecutorService releaser = Executors.newSingleThreadExecutor();
      Throwable thrown;
      try {
        Future<Throwable> failure =
            releaser.submit(
                () -> {
                  try {
                    store.release(key, "a");
                    return null;
                  } catch (RuntimeException e) {
                    return e;
                  }
                });
        thrown = failure.get(30, TimeUnit.SECONDS);
      } finally {
        releaser.shutdownNow();
      }
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      c.rollback();
      assertThat(thrown).as("release while the row is locked").isNotNull();
      assertThat(store.classify((Exception) thrown)).isEqualTo(StoreFailure.TIMED_OUT);
      assertThat(took).isLessThan(Duration.ofSeconds(20));
    }
    assertThat(store.release(key, "a")).isEqualTo(ReleaseOutcome.RELEASED);
  }

  @Test
  @DisplayName("Names with quotes round-trip as data")
  void namesWithQuotes() throws Exception {
    assertRoundTrip("o'brien\"; x' OR '1'='1");
  }

  @Test
  @DisplayName("Names with semicolons and SQL statements round-trip as data")
  void namesWithSemicolons() throws Exception {
    assertRoundTrip("a; DROP TABLE locksmith_locks; --");
  }

  @Test
  @DisplayName("Names with comment markers round-trip as data")
  void namesWithCommentMarkers() throws Exception {
    assertRoundTrip("x -- y /* z */ # w");
  }

  @Test
  @DisplayName("Names with backslashes round-trip as data")
  void namesWithBackslashes() throws Exception {
    assertRoundTrip("C:\\temp\\' \\\\ \\0 \\n");
  }

  @Test
  @DisplayName("Names with non-ASCII text round-trip as data")
  void namesWithNonAscii() throws Exception {
    assertRoundTrip("Zürich · 東京 · Ελλάδα · 🔒");
  }

  @Test
  @DisplayName("Names that differ only in case or trailing spaces are different locks")
  void namesCompareExactly() {
    String base = uniqueName("Case");
    LockClient a = client();
    LockClient b = client();
    assertThat(a.lock(base).tryAcquire()).isPresent();
    assertThat(b.lock(base.toLowerCase()).tryAcquire()).isPresent();
    assertThat(b.lock(base + " ").tryAcquire()).isPresent();
    assertThat(b.lock(base).tryAcquire()).isEmpty();
  }

  @Test
  @DisplayName("Purging idle rows deletes them, and the name's tokens keep rising")
  void purgeKeepsTokensRising() throws Exception {
    JdbcLockStore store = store();
    String tag = uniqueName("purge");
    LockKey key = LockKey.exclusive(tag + "-idle");
    long last = 0;
    for (int i = 0; i < 3; i++) {
      last = store.tryAcquire(key, "o", Duration.ofSeconds(30)).token();
      store.release(key, "o");
    }
    LockKey held = LockKey.exclusive(tag + "-held");
    store.tryAcquire(held, "o", Duration.ofSeconds(30));
    LockKey lapsed = LockKey.exclusive(tag + "-lapsed");
    store.tryAcquire(lapsed, "o", Duration.ofMillis(1));
    await().atMost(Duration.ofSeconds(5)).until(() -> !store.read(lapsed).locked());
    assertThat(store.purgeIdle(Duration.ZERO)).isGreaterThanOrEqualTo(1);
    assertThat(rowsContaining(tag)).as("only the held lock's row is left").isEqualTo(1);
    assertThat(store.tryAcquire(key, "o", Duration.ofSeconds(30)).token()).isGreaterThan(last);
    // A held lock is never idle.
    assertThat(store.read(held).owner()).isEqualTo("o");
  }

  @Test
  @DisplayName(
      "Distinct names acquired and released (exclusive, nested, read, write) leave no rows")
  void releasedLocksLeaveNoRows() throws Exception {
    String tag = uniqueName("footprint");
    LockClient a = client(LockOptions.builder().keyPrefix("fp-" + tag.hashCode()).build());
    LockClient b = client(LockOptions.builder().keyPrefix("fp-" + tag.hashCode()).build());
    for (int i = 0; i < 120; i++) {
      String name = tag + "-x-" + i;
      DistributedLock lock = a.lock(name).withOwner("footprint-owner");
      try (Lease lease = lock.tryAcquire().orElseThrow()) {
        if (i % 10 == 0) {
          lock.tryAcquire().orElseThrow().release();
        }
        if (i % 7 == 0) {
          assertThat(b.lock(name).isLocked()).isTrue();
        }
      }
    }
    for (int i = 0; i < 40; i++) {
      DistributedReadWriteLock rw = a.readWriteLock(tag + "-rw-" + i);
      if (i % 2 == 0) {
        try (Lease r1 = rw.readLock().tryAcquire().orElseThrow();
            Lease r2 = b.readWriteLock(rw.name()).readLock().tryAcquire().orElseThrow()) {
          assertThat(r2.isValid()).isTrue();
        }
      } else {
        rw.writeLock().tryAcquire().orElseThrow().release();
        rw.readLock().tryAcquire().orElseThrow().release();
      }
    }
    assertThat(rowsContaining(tag)).as("rows left by released locks").isZero();
  }

  @Test
  @DisplayName("A crashed holder's rows are swept once its lease ran out")
  void crashedHoldersRowsAreSwept() throws Exception {
    String tag = uniqueName("crashed");
    // The holder never releases, like a process that died.
    JdbcLockStore holder = store();
    Duration lease = Duration.ofMillis(500);
    for (int i = 0; i < 20; i++) {
      assertThat(holder.tryAcquire(LockKey.exclusive(tag + "-" + i), "dead", lease).isAcquired())
          .isTrue();
    }
    holder.tryAcquire(new LockKey(tag + "-w", LockMode.WRITE), "dead", lease);
    holder.tryAcquire(new LockKey(tag + "-r", LockMode.READ), "dead", lease);
    assertThat(rowsContaining(tag)).isEqualTo(23);
    // The sweeper starts only now: started before the holds, it swept the first of them when
    // taking all 23 outlasted the lease on a busy machine (CI counted 22).
    client(LockOptions.defaults(), "locksmith.sweepInterval=200ms");
    await()
        .atMost(lease.plus(Duration.ofMillis(200)).plusSeconds(5))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> rowsContaining(tag) == 0);
  }

  @Test
  @DisplayName("Tokens keep rising when a lock's rows are deleted behind the store's back")
  void tokensRiseAfterRowsAreDeleted() throws Exception {
    JdbcLockStore store = store();
    String tag = uniqueName("deleted");
    LockKey key = LockKey.exclusive(tag + "-x");
    long last = 0;
    for (int i = 0; i < 3; i++) {
      last = store.tryAcquire(key, "o", Duration.ofSeconds(30)).token();
      store.release(key, "o");
    }
    LockKey write = new LockKey(tag + "-rw", LockMode.WRITE);
    long lastWrite = store.tryAcquire(write, "w", Duration.ofSeconds(30)).token();
    store.release(write, "w");
    deleteRowsContaining(tag);
    assertThat(store.tryAcquire(key, "o", Duration.ofSeconds(30)).token())
        .as("token after the rows were deleted")
        .isGreaterThan(last);
    assertThat(store.tryAcquire(LockKey.exclusive(tag + "-new"), "o", lease30()).token())
        .as("token of a name never seen")
        .isGreaterThan(Math.max(last, lastWrite));
    Acquisition reader = store.tryAcquire(new LockKey(write.name(), LockMode.READ), "r", lease30());
    assertThat(reader.token()).as("reader after the writer").isGreaterThan(lastWrite);
    store.release(new LockKey(write.name(), LockMode.READ), "r");
    assertThat(store.tryAcquire(write, "w", lease30()).token()).isGreaterThan(reader.token());
  }

  @Test
  @DisplayName("Prefixes never collide: (\"a\", \"bc\") and (\"ab\", \"c\") are two locks")
  void prefixesNeverCollide() {
    String u = Integer.toHexString(UUID.randomUUID().hashCode());
    // Each two pairs concatenate to the same string.
    String[][] pairs = {
      {"a" + u, "bc"}, {"a" + u + "b", "c"},
      {"", u + "x:foo"}, {u + "x:", "foo"},
      {"p" + u + ":", "x:lock:y"}, {"p" + u + ":x:", "lock:y"},
    };
    for (int i = 0; i < pairs.length; i += 2) {
      LockClient first = client(prefixed(pairs[i][0]));
      LockClient second = client(prefixed(pairs[i + 1][0]));
      Lease held = first.lock(pairs[i][1]).tryAcquire().orElseThrow();
      assertThat(second.lock(pairs[i + 1][1]).tryAcquire())
          .as(
              "(%s, %s) while (%s, %s) is held",
              pairs[i + 1][0], pairs[i + 1][1], pairs[i][0], pairs[i][1])
          .isPresent();
      held.release();
    }
  }

  @Test
  @DisplayName(
      "A table of the earlier version (no sequence, versions up to 50) keeps working: tokens rise"
          + " above 50, also when clients open it at once")
  void upgradesATableOfTheEarlierVersion() throws Exception {
    String table = "old_" + Integer.toHexString(UUID.randomUUID().hashCode() & 0x7fffffff);
    try (Connection c = dataSource().getConnection();
        java.sql.Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE "
              + table
              + " (name VARCHAR(320) NOT NULL, kind CHAR(1) NOT NULL, owner VARCHAR(255),"
              + " holds INT NOT NULL, version BIGINT NOT NULL, expires_at BIGINT NOT NULL,"
              + " waiting_owner VARCHAR(255), waiting_until BIGINT NOT NULL,"
              + " PRIMARY KEY (name, kind))");
      st.execute(
          "CREATE TABLE "
              + table
              + "_readers (name VARCHAR(320) NOT NULL, owner VARCHAR(255) NOT NULL,"
              + " holds INT NOT NULL, expires_at BIGINT NOT NULL, PRIMARY KEY (name, owner))");
      st.execute(
          "INSERT INTO "
              + table
              + " VALUES ('released', 'X', NULL, 0, 50, 0, NULL, 0),"
              + " ('held', 'X', 'old-owner', 1, 40, 9000000000000, NULL, 0),"
              + " ('written', 'W', NULL, 0, 45, 0, NULL, 0)");
    }
    JdbcLockStoreOptions options = JdbcLockStoreOptions.builder().table(table).build();
    ExecutorService openers = Executors.newFixedThreadPool(4);
    List<JdbcLockStore> stores = new ArrayList<>();
    try {
      List<Future<JdbcLockStore>> opening = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        opening.add(openers.submit(() -> new JdbcLockStore(dataSource(), options)));
      }
      for (Future<JdbcLockStore> f : opening) {
        stores.add(f.get(60, TimeUnit.SECONDS));
      }
    } finally {
      openers.shutdownNow();
      toClose.addAll(stores);
    }
    JdbcLockStore a = stores.get(0);
    JdbcLockStore b = stores.get(3);
    LockKey released = LockKey.exclusive("released");
    assertThat(a.tryAcquire(released, "new", lease30()).token()).isGreaterThan(50);
    assertThat(b.tryAcquire(LockKey.exclusive("fresh"), "new", lease30()).token())
        .as("a name the old table never saw")
        .isGreaterThan(50);
    LockKey held = LockKey.exclusive("held");
    assertThat(b.tryAcquire(held, "new", lease30()).isAcquired()).isFalse();
    assertThat(a.release(held, "old-owner")).isEqualTo(ReleaseOutcome.RELEASED);
    assertThat(b.tryAcquire(held, "new", lease30()).token()).isGreaterThan(50);
    LockKey written = new LockKey("written", LockMode.WRITE);
    assertThat(a.tryAcquire(written, "new", lease30()).token()).isGreaterThan(50);
    // Rows deleted (released, or swept as the old table's free rows are): still above 50.
    a.release(released, "new");
    assertThat(b.purgeIdle(Duration.ZERO)).isGreaterThanOrEqualTo(0);
    assertThat(b.tryAcquire(released, "again", lease30()).token()).isGreaterThan(50);
  }

  private void assertRoundTrip(String tricky) throws Exception {
    String name = tricky + " " + UUID.randomUUID();
    LockClient a = client();
    try (Lease lease = a.lock(name).tryAcquire().orElseThrow()) {
      assertThat(lease.name()).isEqualTo(name);
      assertThat(client().lock(name).tryAcquire()).isEmpty();
      // A different name sharing the prefix is a different lock.
      assertThat(client().lock(tricky).tryAcquire().map(l -> l.name())).isPresent();
      // The row holds exactly the name, byte for byte, and the table is still there.
      assertThat(rowVersion(name)).isEqualTo(lease.fencingToken());
    }
  }

  /** The rows of both default lock tables whose name contains {@code text}, whatever the layout. */
  long rowsContaining(String text) throws SQLException {
    long rows = 0;
    try (Connection c = dataSource().getConnection()) {
      for (String table : List.of("locksmith_locks", "locksmith_locks_readers")) {
        try (PreparedStatement ps =
            c.prepareStatement("SELECT COUNT(*) FROM " + table + " WHERE name LIKE ?")) {
          ps.setString(1, "%" + text + "%");
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            rows += rs.getLong(1);
          }
        }
      }
    }
    return rows;
  }

  /** Deletes the rows whose name contains {@code text}, as an operator or an eviction would. */
  void deleteRowsContaining(String text) throws SQLException {
    try (Connection c = dataSource().getConnection()) {
      c.setAutoCommit(true);
      for (String table : List.of("locksmith_locks", "locksmith_locks_readers")) {
        try (PreparedStatement ps =
            c.prepareStatement("DELETE FROM " + table + " WHERE name LIKE ?")) {
          ps.setString(1, "%" + text + "%");
          ps.executeUpdate();
        }
      }
    }
  }

  private long rowVersion(String name) throws SQLException {
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT name, version FROM locksmith_locks WHERE name = ? AND kind = 'X'")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("row for %s", name).isTrue();
        assertThat(rs.getString(1)).isEqualTo(name);
        long version = rs.getLong(2);
        assertThat(rs.next()).isFalse();
        return version;
      }
    }
  }
}
