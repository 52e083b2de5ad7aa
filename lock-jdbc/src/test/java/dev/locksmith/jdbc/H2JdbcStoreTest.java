package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The JDBC store's own promises on H2 in memory. */
class H2JdbcStoreTest extends JdbcStoreBehaviour {

  private static final String URL = TestDatabases.newH2Url();

  @Override
  String lockUri() {
    return URL;
  }

  @Override
  DataSource dataSource() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL(URL);
    return ds;
  }

  @Test
  @DisplayName("Sessions in different time zones agree on when a lock expires")
  void sessionsInDifferentTimeZonesShareOneClock() {
    // H2 reads CURRENT_TIMESTAMP in the session's zone; were the store's clock a local date-time,
    // a session 14 hours ahead would see every lock of a UTC session as long expired.
    String db = "jdbc:h2:mem:zones-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    try (LockClient utc = LockClient.open(db + ";TIME ZONE=UTC");
        LockClient kiritimati = LockClient.open(db + ";TIME ZONE=Pacific/Kiritimati");
        LockClient honolulu = LockClient.open(db + ";TIME ZONE=Pacific/Honolulu")) {
      Lease held = utc.lock("zoned").withLeaseTime(Duration.ofSeconds(30)).tryAcquire().get();
      assertThat(kiritimati.lock("zoned").tryAcquire()).isEmpty();
      assertThat(honolulu.lock("zoned").tryAcquire()).isEmpty();
      held.release();

      Lease ahead =
          kiritimati.lock("zoned").withLeaseTime(Duration.ofSeconds(30)).tryAcquire().get();
      assertThat(ahead.fencingToken()).isGreaterThan(held.fencingToken());
      assertThat(utc.lock("zoned").tryAcquire()).isEmpty();
      assertThat(honolulu.lock("zoned").tryAcquire()).isEmpty();
      ahead.release();
    }
  }

  @Test
  @DisplayName("Lock statements do not make H2 parse statements again (no SET per statement)")
  void steadyTrafficKeepsTheParsedStatementCaches() throws Exception {
    // H2's Statement.setQueryTimeout runs SET QUERY_TIMEOUT, and every SET discards the parsed
    // statements of every session of the database: a timeout per statement made each lock
    // statement be parsed again. The store sets it once per connection instead.
    String db = TestDatabases.newH2Url();
    // One pooled connection: a pool that opens another connection meanwhile sets its timeout once,
    // which is right, but would move the counter this test watches.
    try (LockClient client = LockClient.open(db + "?locksmith.poolSize=1", LockOptions.defaults());
        Connection probe = DriverManager.getConnection(db)) {
      for (int i = 0; i < 20; i++) {
        client.lock("warm").acquire(Duration.ofSeconds(1)).release();
      }
      long before = modificationMetaId(probe);
      for (int i = 0; i < 200; i++) {
        Optional<Lease> lease = client.lock("steady-" + (i % 4)).tryAcquire();
        assertThat(lease).isPresent();
        lease.get().extend(Duration.ofSeconds(10));
        lease.get().release();
      }
      assertThat(modificationMetaId(probe)).isEqualTo(before);
    }
  }

  private static long modificationMetaId(Connection c) throws SQLException {
    SessionLocal session = (SessionLocal) c.unwrap(JdbcConnection.class).getSession();
    return session.getDatabase().getModificationMetaId();
  }
}
