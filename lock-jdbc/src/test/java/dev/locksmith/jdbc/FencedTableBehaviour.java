package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.StaleTokenException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link FencedTable} on a real database: stale writes refused, equal tokens accepted, a holder
 * whose lease expired refused after the next holder wrote, concurrent writers, bad input.
 */
abstract class FencedTableBehaviour {

  private static final AtomicInteger TABLES = new AtomicInteger();

  private JdbcTemplate sql;
  private String tableName;
  private FencedTable table;

  /** The data source of the database under test. */
  abstract DataSource dataSource();

  /** The lock URI of the same database, without options. */
  abstract String lockUri();

  /** A short name of the database, printed before the messages tests show. */
  abstract String database();

  @BeforeEach
  void createTable() {
    sql = new JdbcTemplate(dataSource());
    tableName = "fenced_" + ProcessHandle.current().pid() + "_" + TABLES.incrementAndGet();
    sql.execute(
        "CREATE TABLE "
            + tableName
            + " (id BIGINT PRIMARY KEY, status VARCHAR(40), amount INT, fence BIGINT)");
    table = new FencedTable(dataSource(), tableName);
  }

  private Map<String, Object> row(long id) {
    return sql.queryForMap("SELECT status, amount, fence FROM " + tableName + " WHERE id = ?", id);
  }

  @Test
  @DisplayName("A write with a lower token than the row's is refused and the newer value stays")
  void staleWriteIsRefused() {
    table.write(1L, 20, Map.of("status", "NEW", "amount", 200));

    assertThatThrownBy(() -> table.write(1L, 19, Map.of("status", "OLD", "amount", 190)))
        .isInstanceOfSatisfying(
            StaleTokenException.class,
            e -> {
              assertThat(e.offeredToken()).isEqualTo(19);
              assertThat(e.highestAccepted()).hasValue(20);
              assertThat(e.resource()).contains(tableName).contains("id=1");
            });
    assertThat(row(1)).containsEntry("status", "NEW").containsEntry("amount", 200);
    assertThat(table.fence(1L)).hasValue(20);
  }

  @Test
  @DisplayName("The same token writes twice; a higher one writes over it")
  void equalTokenIsAccepted() {
    table.write(2L, 7, Map.of("status", "FIRST"));
    table.write(2L, 7, Map.of("status", "SECOND"));
    assertThat(row(2)).containsEntry("status", "SECOND");
    table.write(2L, 8, Map.of("status", "THIRD"));
    assertThat(row(2)).containsEntry("status", "THIRD");
    assertThat(table.fence(2L)).hasValue(8);
  }

  @Test
  @DisplayName("A missing row is inserted with the token; columns not written keep their values")
  void missingRowIsInserted() {
    assertThat(table.fence(3L)).isEmpty();
    table.write(3L, 5, Map.of("status", "NEW", "amount", 1));
    assertThat(row(3)).containsEntry("status", "NEW").containsEntry("amount", 1);
    table.write(3L, 6, Map.of("amount", 2));
    assertThat(row(3)).containsEntry("status", "NEW").containsEntry("amount", 2);
    Map<String, Object> nullStatus = new HashMap<>();
    nullStatus.put("status", null);
    table.write(3L, 6, nullStatus);
    assertThat(row(3)).containsEntry("status", null).containsEntry("fence", 6L);
    table.write(3L, 9, Map.of());
    assertThat(table.fence(3L)).hasValue(9);
  }

  @Test
  @DisplayName("A row that had no fence yet accepts any token, then holds that token")
  void rowWithoutFenceAcceptsAnyToken() {
    sql.update("INSERT INTO " + tableName + " (id, status) VALUES (4, 'LEGACY')");
    assertThat(table.fence(4L)).isEmpty();
    table.write(4L, 3, Map.of("status", "FENCED"));
    assertThat(row(4)).containsEntry("status", "FENCED").containsEntry("fence", 3L);
    assertThatThrownBy(() -> table.write(4L, 2, Map.of("status", "LATE")))
        .isInstanceOf(StaleTokenException.class);
  }

  @Test
  @DisplayName("Holder A's late write after its lease expired and B wrote is refused")
  void lateWriteOfExpiredHolderIsRefused() {
    String options = (lockUri().contains("?") ? "&" : "?") + "leaseTime=1s&autoRenew=false";
    try (LockClient clientA = LockClient.open(lockUri() + options);
        LockClient clientB = LockClient.open(lockUri() + options)) {
      Lease a = clientA.lock("order-10").tryAcquire().orElseThrow();
      long t1 = a.fencingToken();
      table.write(10L, t1, Map.of("status", "A-READ"));

      // A stalls (a GC pause, SIGSTOP): its lease runs out on the database clock and B takes over.
      Lease b =
          await()
              .atMost(Duration.ofSeconds(20))
              .pollInterval(Duration.ofMillis(100))
              .until(() -> clientB.lock("order-10").tryAcquire(), Optional::isPresent)
              .orElseThrow();
      long t2 = b.fencingToken();
      assertThat(t2).isGreaterThan(t1);
      table.write(10L, t2, Map.of("status", "B-PAID"));

      // A wakes up, believes it still holds the lock, and writes.
      StaleTokenException refused =
          (StaleTokenException)
              org.assertj.core.api.Assertions.catchThrowable(
                  () -> table.write(10L, t1, Map.of("status", "A-CANCELLED")));
      assertThat(refused).isNotNull();
      assertThat(refused.offeredToken()).isEqualTo(t1);
      assertThat(refused.highestAccepted()).hasValue(t2);
      System.out.println("[" + database() + "] A: t1=" + t1 + ", B: t2=" + t2);
      System.out.println("[" + database() + "] " + refused);
      assertThat(row(10)).containsEntry("status", "B-PAID").containsEntry("fence", t2);
      assertThat(a.isValid()).isFalse();
      b.release();
    }
  }

  @Test
  @DisplayName("Concurrent writers with rising tokens: the row ends with the highest token's value")
  void concurrentWritersEndWithHighestToken() throws Exception {
    AtomicLong tokens = new AtomicLong();
    AtomicInteger refused = new AtomicInteger();
    int threads = 8;
    int writesEach = 25;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        done.add(
            pool.submit(
                () -> {
                  for (int w = 0; w < writesEach; w++) {
                    long token = tokens.incrementAndGet();
                    try {
                      // Row 20 is missing at first: the first writers race to insert it.
                      table.write(20L, token, Map.of("status", "t" + token, "amount", (int) token));
                    } catch (StaleTokenException e) {
                      assertThat(e.highestAccepted().orElseThrow()).isGreaterThan(token);
                      refused.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    long highest = tokens.get();
    assertThat(row(20))
        .containsEntry("status", "t" + highest)
        .containsEntry("amount", (int) highest)
        .containsEntry("fence", highest);
    System.out.println(
        "["
            + database()
            + "] "
            + threads * writesEach
            + " concurrent writes, "
            + refused.get()
            + " refused as stale, final fence "
            + highest);
  }

  @Test
  @DisplayName("Bad input fails at once with a message that names it")
  void badInputIsRefused() {
    DataSource ds = dataSource();
    assertThatThrownBy(() -> new FencedTable(null, "orders"))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("dataSource");
    assertThatThrownBy(() -> new FencedTable(ds, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("table");
    for (String bad :
        List.of(
            "",
            "orders; DROP TABLE orders",
            "1orders",
            "ord-ers",
            "\"orders\"",
            "a.b.c",
            "x".repeat(64))) {
      assertThatThrownBy(() -> new FencedTable(ds, bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("plain SQL identifier");
    }
    assertThatThrownBy(() -> new FencedTable(ds, "orders", "id", "ID"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("two columns");
    assertThatThrownBy(() -> new FencedTable(ds, "orders", "id", "fence OR 1=1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fenceColumn");

    assertThatThrownBy(() -> table.write(null, 1, Map.of()))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("id");
    assertThatThrownBy(() -> table.write(1L, -1, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("token must not be negative");
    assertThatThrownBy(() -> table.write(1L, 1, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("columns");
    Map<String, Object> nullName = new HashMap<>();
    nullName.put(null, 1);
    assertThatThrownBy(() -> table.write(1L, 1, nullName))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("column name");
    assertThatThrownBy(() -> table.write(1L, 1, Map.of("status = 'x', amount", 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column name");
    assertThatThrownBy(() -> table.write(1L, 1, Map.of("FENCE", 99)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fence column");
    assertThatThrownBy(() -> table.write(1L, 1, Map.of("status", "a", "STATUS", "b")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("twice");
    // Values are bound, never SQL: this text lands in the column as it is.
    String injection = "x'; DROP TABLE " + tableName + "; --";
    table.write(30L, 1, Map.of("status", injection));
    assertThat(row(30)).containsEntry("status", injection);
    assertThat(table.fence(30L)).hasValue(1);
    assertThat(sql.queryForObject("SELECT COUNT(*) FROM " + tableName, Long.class)).isEqualTo(1);
  }
}
