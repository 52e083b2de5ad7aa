package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.jdbc.internal.SqlDialect;
import dev.locksmith.spi.Acquisition;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.ReleaseOutcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
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

/**
 * The MySQL dialect's statements, run on MariaDB. No MySQL server can be had from Maven Central,
 * but MariaDB accepts every statement the MySQL dialect sends (its one-row token counter drawn with
 * {@code LAST_INSERT_ID(expr)}, {@code VALUES()} in {@code ON DUPLICATE KEY UPDATE}, the {@code
 * utf8mb4_0900_bin} collation of its DDL), so the dialect's logic is checked here; what only a
 * MySQL server could show (its driver's generated keys, its locking) is not.
 */
class MySqlStatementsOnMariaDbTest {

  private static final Duration LEASE = Duration.ofSeconds(30);

  private final List<AutoCloseable> toClose = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  private static DataSource dataSource() {
    return TestDatabases.mariaDb().dataSource();
  }

  private JdbcLockStore store(String table) {
    JdbcLockStore store =
        new JdbcLockStore(
            dataSource(),
            JdbcLockStoreOptions.builder().table(table).build(),
            null,
            SqlDialect.MYSQL);
    toClose.add(store);
    return store;
  }

  private static String newTable() {
    return "my_" + Integer.toHexString(UUID.randomUUID().hashCode() & 0x7fffffff);
  }

  @Test
  @DisplayName("Take, busy, re-enter, release: the row goes, and the next token is higher")
  void exclusiveLock() throws Exception {
    String table = newTable();
    JdbcLockStore store = store(table);
    assertThat(store.dialect()).isEqualTo("mysql");
    LockKey key = LockKey.exclusive("job");
    Acquisition first = store.tryAcquire(key, "a", LEASE);
    assertThat(first.isAcquired()).isTrue();
    assertThat(first.token()).isPositive();
    assertThat(store.tryAcquire(key, "b", LEASE).isAcquired()).isFalse();
    Acquisition nested = store.tryAcquire(key, "a", LEASE);
    assertThat(nested.token()).isEqualTo(first.token());
    assertThat(nested.holds()).isEqualTo(2);
    assertThat(store.release(key, "a")).isEqualTo(ReleaseOutcome.HOLD_DECREMENTED);
    assertThat(store.release(key, "a")).isEqualTo(ReleaseOutcome.RELEASED);
    assertThat(rows(table)).isZero();
    Acquisition next = store.tryAcquire(key, "b", LEASE);
    assertThat(next.token()).isGreaterThan(first.token());
    assertThat(store.release(key, "a")).isEqualTo(ReleaseOutcome.NOT_HELD);
  }

  @Test
  @DisplayName("An expired hold is taken over with a higher token; the sweep deletes expired rows")
  void takeOverAndSweep() throws Exception {
    String table = newTable();
    JdbcLockStore store = store(table);
    LockKey key = LockKey.exclusive("lapsing");
    long old = store.tryAcquire(key, "a", Duration.ofMillis(200)).token();
    Acquisition next =
        await()
            .atMost(Duration.ofSeconds(5))
            .until(() -> store.tryAcquire(key, "b", LEASE), Acquisition::isAcquired);
    assertThat(next.token()).isGreaterThan(old);
    store.tryAcquire(LockKey.exclusive("crashed"), "c", Duration.ofMillis(1));
    await().atMost(Duration.ofSeconds(5)).until(() -> store.purgeIdle(Duration.ZERO) >= 1);
    assertThat(rows(table)).as("only the live hold").isEqualTo(1);
  }

  @Test
  @DisplayName("Read-write: a writer's token, then readers' at least as high, then a higher writer")
  void readWrite() throws Exception {
    String table = newTable();
    JdbcLockStore store = store(table);
    LockKey write = new LockKey("rw", LockMode.WRITE);
    LockKey read = new LockKey("rw", LockMode.READ);
    long w1 = store.tryAcquire(write, "w", LEASE).token();
    assertThat(store.tryAcquire(read, "r", LEASE).isAcquired()).isFalse();
    assertThat(store.release(write, "w")).isEqualTo(ReleaseOutcome.RELEASED);
    Acquisition r = store.tryAcquire(read, "r", LEASE);
    assertThat(r.token()).isGreaterThan(w1);
    assertThat(store.tryAcquire(write, "w", LEASE).isAcquired()).isFalse();
    assertThat(store.release(read, "r")).isEqualTo(ReleaseOutcome.RELEASED);
    assertThat(store.tryAcquire(write, "w", LEASE).token()).isGreaterThan(r.token());
    assertThat(store.release(write, "w")).isEqualTo(ReleaseOutcome.RELEASED);
    assertThat(rows(table)).isZero();
  }

  @Test
  @DisplayName(
      "A table of the earlier version (versions up to 50) gets a counter that starts above")
  void upgrade() throws Exception {
    String table = newTable();
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE "
              + table
              + " (name VARCHAR(320) NOT NULL, kind CHAR(1) NOT NULL, owner VARCHAR(255),"
              + " holds INT NOT NULL, version BIGINT NOT NULL, expires_at BIGINT NOT NULL,"
              + " waiting_owner VARCHAR(255), waiting_until BIGINT NOT NULL,"
              + " PRIMARY KEY (name, kind))");
      st.execute("INSERT INTO " + table + " VALUES ('old', 'X', NULL, 0, 50, 0, NULL, 0)");
    }
    JdbcLockStore store = store(table);
    assertThat(store.tryAcquire(LockKey.exclusive("old"), "a", LEASE).token()).isGreaterThan(50);
    assertThat(store.tryAcquire(LockKey.exclusive("new"), "a", LEASE).token()).isGreaterThan(50);
  }

  @Test
  @DisplayName("Only one of many threads on two clients is ever inside; tokens rise with each")
  void contention() throws Exception {
    String table = newTable();
    LockClient a = LockClient.of(store(table), LockOptions.defaults());
    LockClient b = LockClient.of(store(table), LockOptions.defaults());
    toClose.add(a);
    toClose.add(b);
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger overlaps = new AtomicInteger();
    AtomicLong lastToken = new AtomicLong();
    AtomicInteger regressions = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        LockClient client = t % 2 == 0 ? a : b;
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 20; i++) {
                    try (Lease lease = client.lock("contended").acquire(Duration.ofSeconds(30))) {
                      if (inside.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                      }
                      if (lease.fencingToken() <= lastToken.getAndSet(lease.fencingToken())) {
                        regressions.incrementAndGet();
                      }
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
    assertThat(overlaps).hasValue(0);
    assertThat(regressions).hasValue(0);
    assertThat(rows(table)).isZero();
  }

  private static long rows(String table) throws Exception {
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT (SELECT COUNT(*) FROM "
                    + table
                    + ") + (SELECT COUNT(*) FROM "
                    + table
                    + "_readers)");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
