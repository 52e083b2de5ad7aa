package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.spi.StoreFailure;
import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLInvalidAuthorizationSpecException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.PermissionDeniedDataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.jdbc.UncategorizedSQLException;

/**
 * How the JDBC store names the kind of a failure ({@link JdbcLockStore#classify}), on the
 * exceptions that Spring, HikariCP and the drivers throw.
 */
class JdbcFailureKindTest {

  private static JdbcLockStore store;

  @BeforeAll
  static void open() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL(TestDatabases.newH2Url());
    store = new JdbcLockStore(ds);
  }

  @AfterAll
  static void close() {
    store.close();
  }

  @Test
  @DisplayName("Spring's resource failures, timeouts and refusals have their kinds")
  void springTranslations() {
    assertThat(store.classify(new CannotGetJdbcConnectionException("no connection")))
        .isEqualTo(StoreFailure.UNAVAILABLE);
    assertThat(store.classify(new DataAccessResourceFailureException("gone")))
        .isEqualTo(StoreFailure.UNAVAILABLE);
    assertThat(store.classify(new QueryTimeoutException("slow"))).isEqualTo(StoreFailure.TIMED_OUT);
    assertThat(store.classify(new PermissionDeniedDataAccessException("no", null)))
        .isEqualTo(StoreFailure.REFUSED);
  }

  @Test
  @DisplayName("The driver's own exception classes and SQLSTATEs have their kinds")
  void driverExceptions() {
    assertThat(store.classify(new SQLTransientConnectionException("pool timed out")))
        .isEqualTo(StoreFailure.UNAVAILABLE);
    assertThat(store.classify(new SQLNonTransientConnectionException("session closed")))
        .isEqualTo(StoreFailure.UNAVAILABLE);
    assertThat(store.classify(new SQLTimeoutException("statement timed out")))
        .isEqualTo(StoreFailure.TIMED_OUT);
    assertThat(store.classify(new SQLInvalidAuthorizationSpecException("wrong password")))
        .isEqualTo(StoreFailure.REFUSED);
    assertThat(store.classify(new SQLException("canceling statement", "57014")))
        .isEqualTo(StoreFailure.TIMED_OUT);
    assertThat(store.classify(new SQLException("I/O error", "08006")))
        .isEqualTo(StoreFailure.UNAVAILABLE);
    assertThat(store.classify(new SQLException("syntax error", "42601")))
        .isEqualTo(StoreFailure.UNCLASSIFIED);
  }

  @Test
  @DisplayName(
      "The most specific cause decides: a pool timeout caused by a wrong password is REFUSED")
  void deepestCauseWins() {
    // HikariCP times out a connection request and names the last connect failure as its cause;
    // PostgreSQL's driver reports a wrong password as a plain SQLException of class 28.
    SQLException wrongPassword =
        new SQLException("password authentication failed for user \"app\"", "28P01");
    SQLException poolTimeout =
        new SQLTransientConnectionException("Connection is not available", null, wrongPassword);
    assertThat(store.classify(new CannotGetJdbcConnectionException("no connection", poolTimeout)))
        .isEqualTo(StoreFailure.REFUSED);

    SQLException refused = new SQLException("Connection to 127.0.0.1:1 refused", "08001");
    refused.initCause(new ConnectException("Connection refused"));
    assertThat(store.classify(new UncategorizedSQLException("connect", null, refused)))
        .isEqualTo(StoreFailure.UNAVAILABLE);

    InterruptedException interrupted = new InterruptedException();
    assertThat(store.classify(new SQLException("interrupted", interrupted)))
        .isEqualTo(StoreFailure.INTERRUPTED);
  }
}
