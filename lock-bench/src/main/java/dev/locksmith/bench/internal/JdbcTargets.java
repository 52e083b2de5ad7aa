package dev.locksmith.bench.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.locksmith.bench.LockTarget;
import dev.locksmith.bench.Servers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/** The JDBC targets on H2 or PostgreSQL: the raw statements, Spring Integration and ShedLock. */
final class JdbcTargets {

  private static final AtomicInteger POOLS = new AtomicInteger();

  private JdbcTargets() {}

  /** A HikariCP pool of 10 (Locksmith's JDBC default), so every target gets the same pool. */
  static HikariDataSource pool(String store) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("bench-" + store + "-" + POOLS.incrementAndGet());
    config.setJdbcUrl(Servers.jdbcUrl(store));
    if (store.equals("postgres")) {
      config.setUsername("postgres");
    }
    config.setMaximumPoolSize(10);
    config.setMinimumIdle(1);
    config.setAutoCommit(true);
    return new HikariDataSource(config);
  }

  /** Runs DDL, ignoring "already exists" so that several targets and forks can share a database. */
  static void createTable(DataSource ds, String ddl) {
    try (Connection c = ds.getConnection();
        var s = c.createStatement()) {
      s.execute(ddl);
    } catch (SQLException e) {
      String state = e.getSQLState();
      // 42P07 (PostgreSQL) and 42S01 (H2): the table exists already.
      if (!"42P07".equals(state) && !"42S01".equals(state)) {
        throw new IllegalStateException("could not run " + ddl, e);
      }
    }
  }

  /**
   * A raw bound: one pool and one owner id of its own, a lock taken by single attempts that {@link
   * Waits#retry} repeats while another owner holds it.
   */
  private abstract static class RawTarget implements LockTarget {
    final String store;
    final HikariDataSource ds;
    final String owner = UUID.randomUUID().toString();
    private final String id;

    RawTarget(String store, String impl) {
      this.store = store;
      this.id = store + "/" + impl;
      ds = pool(store);
    }

    /**
     * The owner of the next hold: this target's id, one owner for all its holds as the peers have
     * one per process.
     */
    String ownerOfNextHold() {
      return owner;
    }

    /** One attempt as {@code who}: the held lock, or null if another owner holds it. */
    abstract @Nullable Held tryOnce(String name, String who) throws SQLException;

    @Override
    public final String id() {
      return id;
    }

    @Override
    public final Held acquire(String name) throws Exception {
      String who = ownerOfNextHold();
      return Waits.retry(name, () -> tryOnce(name, who));
    }

    @Override
    public final boolean blocking() {
      return false;
    }

    @Override
    public final void close() {
      ds.close();
    }

    /** Whether {@code e} is a unique-key violation: another owner inserted the row first. */
    static boolean duplicateKey(SQLException e) {
      return e.getSQLState() != null && e.getSQLState().startsWith("23");
    }
  }

  /**
   * The two statements a lock table needs at the least: a guarded {@code UPDATE} that takes the row
   * if it is free or expired (on the database clock), with an {@code INSERT} the first time a name
   * is seen; and an owner-checked {@code UPDATE} that frees it. Rows are never deleted, like
   * Locksmith's table, so the steady state is exactly two statements per acquire and release.
   */
  static final class Raw extends RawTarget {
    private final String acquireSql;
    private final String insertSql;
    private static final String RELEASE_SQL =
        "UPDATE bench_raw_lock SET owner = NULL WHERE name = ? AND owner = ?";

    Raw(String store) {
      super(store, "raw");
      createTable(
          ds,
          "CREATE TABLE bench_raw_lock (name VARCHAR(255) PRIMARY KEY, owner VARCHAR(64),"
              + " expires_at TIMESTAMP WITH TIME ZONE NOT NULL)");
      String expiry =
          store.equals("h2")
              ? "DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)"
              : "CURRENT_TIMESTAMP + CAST(? AS INTEGER) * INTERVAL '1 millisecond'";
      acquireSql =
          "UPDATE bench_raw_lock SET owner = ?, expires_at = "
              + expiry
              + " WHERE name = ? AND (owner IS NULL OR expires_at < CURRENT_TIMESTAMP)";
      insertSql =
          "INSERT INTO bench_raw_lock (name, owner, expires_at) VALUES (?, ?, " + expiry + ")";
    }

    @Override
    @Nullable Held tryOnce(String name, String who) throws SQLException {
      try (Connection c = ds.getConnection()) {
        try (PreparedStatement update = c.prepareStatement(acquireSql)) {
          update.setString(1, who);
          update.setInt(2, 30_000);
          update.setString(3, name);
          if (update.executeUpdate() == 1) {
            return () -> release(name, who);
          }
        }
        try (PreparedStatement insert = c.prepareStatement(insertSql)) {
          insert.setString(1, name);
          insert.setString(2, who);
          insert.setInt(3, 30_000);
          insert.executeUpdate();
          return () -> release(name, who);
        } catch (SQLException e) {
          if (duplicateKey(e)) {
            return null; // someone else inserted it first: busy
          }
          throw e;
        }
      }
    }

    private void release(String name, String who) throws SQLException {
      try (Connection c = ds.getConnection();
          PreparedStatement release = c.prepareStatement(RELEASE_SQL)) {
        release.setString(1, name);
        release.setString(2, who);
        if (release.executeUpdate() != 1) {
          throw new IllegalStateException("raw JDBC lock " + name + " was not held");
        }
      }
    }
  }

  /**
   * The same work as Locksmith's JDBC store on bare JDBC, the bound for a client that keeps
   * Locksmith's promises: Locksmith's table layout and its statements, one pooled connection per
   * acquire and per release. The acquire is one guarded {@code UPDATE} that returns the row's
   * version (the fencing token) and hold count (re-entry by the same owner), with an {@code INSERT}
   * the first time a name is seen; the release frees the last hold, owner- and expiry-checked on
   * the database clock, and drops a nested one otherwise. Like Locksmith, it holds each lock as an
   * owner of its own (the target's id and a sequence number), so that releasing an old hold can
   * never free a newer one; the database then meets a new owner value in every acquire. What it
   * leaves out is Locksmith's own machinery: the engine, the per-statement query timeout, the
   * failure translation.
   */
  static final class RawFenced extends RawTarget {
    // Bound as a parameter, as Locksmith does: its exclusive and read-write rows share the table.
    private static final String KIND = "X";
    private final String acquireSql;
    private final String insertSql;
    private final String releaseLastSql;
    private final String releaseNestedSql;
    private final AtomicLong holds = new AtomicLong();

    RawFenced(String store) {
      super(store, "raw-fenced");
      boolean h2 = store.equals("h2");
      String t = "bench_fenced_lock";
      createTable(
          ds,
          "CREATE TABLE "
              + t
              + " (name VARCHAR(320) NOT NULL, kind "
              // As in Locksmith's DDL: H2 compares a CHAR column to a VARCHAR parameter slowly.
              + (h2 ? "VARCHAR(1)" : "CHAR(1)")
              + " NOT NULL, owner VARCHAR(255), holds INT NOT NULL, version BIGINT NOT NULL,"
              + " expires_at BIGINT NOT NULL, waiting_owner VARCHAR(255),"
              + " waiting_until BIGINT NOT NULL, PRIMARY KEY (name, kind))");
      // Milliseconds since the epoch on the database clock, the cheapest exact form on each.
      String now =
          h2
              ? "DATEDIFF(MILLISECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00',"
                  + " CURRENT_TIMESTAMP AT TIME ZONE 'UTC')"
              : "CAST(FLOOR(EXTRACT(EPOCH FROM now()) * 1000) AS BIGINT)";
      String live = "owner = ? AND expires_at > " + now;
      String update =
          "UPDATE "
              + t
              + " SET holds = CASE WHEN "
              + live
              + " THEN holds + 1 ELSE 1 END, version = CASE WHEN "
              + live
              + " THEN version ELSE version + 1 END, owner = ?, expires_at = "
              + now
              + " + ? WHERE name = ? AND kind = ? AND (expires_at <= "
              + now
              + " OR owner = ?)";
      acquireSql =
          h2
              ? "SELECT version, holds FROM FINAL TABLE (" + update + ")"
              : update + " RETURNING version, holds";
      insertSql =
          "INSERT INTO "
              + t
              + " (name, kind, owner, holds, version, expires_at, waiting_owner, waiting_until)"
              + " VALUES (?, ?, ?, 1, 1, "
              + now
              + " + ?, NULL, 0)"
              + (h2 ? "" : " ON CONFLICT DO NOTHING");
      String held = " WHERE name = ? AND kind = ? AND " + live;
      releaseLastSql =
          "UPDATE "
              + t
              + " SET owner = NULL, holds = 0, expires_at = "
              + now
              + held
              + " AND holds = 1";
      releaseNestedSql = "UPDATE " + t + " SET holds = holds - 1" + held + " AND holds > 1";
    }

    @Override
    String ownerOfNextHold() {
      return owner + "/" + holds.incrementAndGet();
    }

    @Override
    @Nullable Held tryOnce(String name, String who) throws SQLException {
      try (Connection c = ds.getConnection()) {
        try (PreparedStatement update = c.prepareStatement(acquireSql)) {
          update.setString(1, who);
          update.setString(2, who);
          update.setString(3, who);
          update.setLong(4, 30_001);
          update.setString(5, name);
          update.setString(6, KIND);
          update.setString(7, who);
          try (ResultSet rs = update.executeQuery()) {
            if (rs.next()) {
              long token = rs.getLong(1);
              return () -> release(name, who, token);
            }
          }
        }
        try (PreparedStatement insert = c.prepareStatement(insertSql)) {
          insert.setString(1, name);
          insert.setString(2, KIND);
          insert.setString(3, who);
          insert.setLong(4, 30_001);
          if (insert.executeUpdate() == 1) {
            return () -> release(name, who, 1);
          }
          return null; // someone else holds it
        } catch (SQLException e) {
          if (duplicateKey(e)) {
            return null; // someone else inserted it first: busy
          }
          throw e;
        }
      }
    }

    private void release(String name, String who, long token) throws SQLException {
      try (Connection c = ds.getConnection()) {
        for (String sql : new String[] {releaseLastSql, releaseNestedSql}) {
          try (PreparedStatement release = c.prepareStatement(sql)) {
            release.setString(1, name);
            release.setString(2, KIND);
            release.setString(3, who);
            if (release.executeUpdate() == 1) {
              return;
            }
          }
        }
      }
      throw new IllegalStateException(
          "raw fenced JDBC lock " + name + " (token " + token + ") was not held");
    }
  }

  /** Spring Integration's {@code JdbcLockRegistry} over a {@code DefaultLockRepository}. */
  static final class SpringRegistry implements LockTarget {
    private final String store;
    private final HikariDataSource ds;
    private final DefaultLockRepository repository;
    private final JdbcLockRegistry registry;

    SpringRegistry(String store) {
      this.store = store;
      ds = pool(store);
      createTable(ds, intLockDdl(store));
      repository = new DefaultLockRepository(ds);
      repository.setTransactionManager(new DataSourceTransactionManager(ds));
      repository.afterPropertiesSet();
      repository.afterSingletonsInstantiated();
      repository.start();
      registry = new JdbcLockRegistry(repository);
    }

    /** The {@code INT_LOCK} DDL shipped in the spring-integration-jdbc jar for this database. */
    private static String intLockDdl(String store) {
      String resource =
          "/org/springframework/integration/jdbc/schema-"
              + (store.equals("h2") ? "h2" : "postgresql")
              + ".sql";
      try (InputStream in = DefaultLockRepository.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("spring-integration-jdbc has no " + resource);
        }
        String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        Matcher m =
            Pattern.compile("CREATE TABLE INT_LOCK\\s*\\(.*?\\)\\s*;", Pattern.DOTALL).matcher(all);
        if (!m.find()) {
          throw new IllegalStateException(resource + " has no INT_LOCK table");
        }
        String ddl = m.group().trim();
        return ddl.substring(0, ddl.length() - 1);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public String id() {
      return store + "/spring";
    }

    @Override
    public Held acquire(String name) throws InterruptedException {
      return Waits.lock(name, registry.obtain(name));
    }

    @Override
    public boolean blocking() {
      return true;
    }

    @Override
    public void close() {
      repository.close();
      ds.close();
    }
  }

  /**
   * ShedLock's {@code JdbcTemplateLockProvider} on the database clock. ShedLock only tries once (it
   * is made for scheduled jobs that skip a run), so it takes no part in hand-off.
   */
  static final class ShedLock implements LockTarget {
    private final String store;
    private final HikariDataSource ds;
    private final JdbcTemplateLockProvider provider;

    ShedLock(String store) {
      this.store = store;
      ds = pool(store);
      createTable(
          ds,
          "CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
              + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL,"
              + " PRIMARY KEY (name))");
      provider =
          new JdbcTemplateLockProvider(
              JdbcTemplateLockProvider.Configuration.builder()
                  .withJdbcTemplate(new JdbcTemplate(ds))
                  .usingDbTime()
                  .build());
    }

    @Override
    public String id() {
      return store + "/shedlock";
    }

    @Override
    public Held acquire(String name) throws Exception {
      return Waits.retry(
          name,
          () -> {
            Optional<SimpleLock> lock =
                provider.lock(
                    new LockConfiguration(
                        Instant.now(), name, Duration.ofSeconds(30), Duration.ZERO));
            return lock.<Held>map(l -> l::unlock).orElse(null);
          });
    }

    @Override
    public boolean blocking() {
      return false;
    }

    @Override
    public void close() {
      ds.close();
    }
  }
}
