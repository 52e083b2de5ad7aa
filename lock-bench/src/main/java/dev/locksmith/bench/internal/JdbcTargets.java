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
   * is seen; and an owner-checked {@code UPDATE} that frees it. Rows are never deleted, so the
   * steady state is exactly two statements per acquire and release. (Locksmith's store, and {@link
   * RawFenced}, delete a row at release and insert it again at the next acquire, in one upsert.)
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
   * Locksmith's promises: Locksmith's table layout, its token sequence and its statements for the
   * dialect, one pooled connection per acquire and per release. A held lock is one row and a free
   * one has none. The acquire is one upsert that inserts or takes over the row (free or expired on
   * the database clock), or counts a re-entry of the same owner, and returns the row's token and
   * hold count; a new holder's token is drawn from the sequence only while the statement holds the
   * row's lock (H2: a {@code MERGE} whose first source row inserts a placeholder, whose second
   * takes it with {@code NEXT VALUE FOR}, read through {@code FINAL TABLE}; PostgreSQL: a
   * transaction's advisory lock on the name, then {@code INSERT … nextval … ON CONFLICT DO UPDATE …
   * RETURNING}), so tokens rise across holders although rows come and go. The release deletes the
   * row with the last hold, owner- and expiry-checked on the database clock, and drops a nested
   * hold otherwise. Like Locksmith, it holds each lock as an owner of its own (the target's id and
   * a sequence number), so that releasing an old hold can never free a newer one; the database then
   * meets a new owner value in every acquire. What it leaves out is Locksmith's own machinery: the
   * engine, the per-statement query timeout, the failure translation, and the store's background
   * sweep of rows whose holder never released (every 30 s; the benchmark releases every hold it
   * takes).
   */
  static final class RawFenced extends RawTarget {
    /** The lock table, in the layout of Locksmith's DDL. */
    static final String TABLE = "bench_fenced_lock";

    /** The token sequence, as the store's {@code <table>_seq}. */
    static final String SEQUENCE = TABLE + "_seq";

    // Bound as a parameter in the release, as Locksmith does: its exclusive and read-write rows
    // share the table.
    private static final String KIND = "X";
    // As Locksmith's store: a few more tries when the row vanished between the MERGE's two steps.
    private static final int ATTEMPTS = 16;
    private final boolean h2;
    private final String acquireSql;
    private final String selectRowSql;
    private final String releaseLastSql;
    private final String releaseNestedSql;
    private final AtomicLong holds = new AtomicLong();

    RawFenced(String store) {
      super(store, "raw-fenced");
      h2 = store.equals("h2");
      String t = TABLE;
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
      // As the store: the sequence starts above every token a row of the table still carries, and
      // on PostgreSQL draws one value at a time (a session's cached block would break the order).
      createTable(
          ds,
          "CREATE SEQUENCE IF NOT EXISTS "
              + SEQUENCE
              + " START WITH "
              + firstToken()
              + (h2 ? "" : " CACHE 1"));
      // Milliseconds since the epoch on the database clock, the cheapest exact form on each.
      String now =
          h2
              ? "DATEDIFF(MILLISECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00',"
                  + " CURRENT_TIMESTAMP AT TIME ZONE 'UTC')"
              : "CAST(FLOOR(EXTRACT(EPOCH FROM now()) * 1000) AS BIGINT)";
      String columns =
          " (name, kind, owner, holds, version, expires_at, waiting_owner, waiting_until)";
      acquireSql = h2 ? h2Acquire(t, now, columns) : postgresAcquire(t, now, columns);
      selectRowSql =
          "SELECT owner, expires_at, " + now + " FROM " + t + " WHERE name = ? AND kind = ?";
      String held = " WHERE name = ? AND kind = ? AND owner = ? AND expires_at > " + now;
      releaseLastSql = "DELETE FROM " + t + held + " AND holds = 1";
      releaseNestedSql = "UPDATE " + t + " SET holds = holds - 1" + held + " AND holds > 1";
    }

    /**
     * H2, as the store: a MERGE of two source rows. The first (step 0) inserts a free placeholder
     * row if the name has none; the second (step 1) then matches the row, locked by this statement,
     * and takes it over (drawing the token now), re-enters or, when busy, changes nothing.
     * Parameters: name, name, owner four times, lease. Answers {@code owner, version, holds,
     * expires_at, NOW} of the rows written, the hold last (the store reads them all).
     */
    private static String h2Acquire(String t, String now, String columns) {
      String mine = "t.owner = ? AND t.expires_at > " + now;
      return "SELECT owner, version, holds, expires_at, "
          + now
          + " FROM FINAL TABLE (MERGE INTO "
          + t
          + " t USING (VALUES (CAST(? AS VARCHAR(320)), 0), (?, 1)) s(name, step)"
          + " ON t.name = s.name AND t.kind = 'X' AND s.step = 1"
          + " WHEN MATCHED AND (t.expires_at <= "
          + now
          + " OR t.owner = ?) THEN UPDATE SET version = CASE WHEN "
          + mine
          + " THEN t.version ELSE NEXT VALUE FOR "
          + SEQUENCE
          + " END, holds = CASE WHEN "
          + mine
          + " THEN t.holds + 1 ELSE 1 END, owner = ?, expires_at = "
          + now
          + " + ?"
          + " WHEN NOT MATCHED AND s.step = 0 AND NOT EXISTS (SELECT 1 FROM "
          + t
          + " x WHERE x.name = s.name AND x.kind = 'X') THEN INSERT"
          + columns
          + " VALUES (s.name, 'X', NULL, 0, 0, 0, NULL, 0))";
    }

    /**
     * PostgreSQL, as the store: a transaction-scoped advisory lock on the name (two-key form, first
     * key the store's), then an upsert that draws the token in its values. Parameters: name, name,
     * owner, lease. Answers {@code version, holds}, or no row if busy.
     */
    private static String postgresAcquire(String t, String now, String columns) {
      String mine = "t.owner = EXCLUDED.owner AND t.expires_at > " + now;
      return "WITH turn AS (SELECT pg_advisory_xact_lock("
          + 0x4C6F636B
          + ", hashtext(?)))"
          + " INSERT INTO "
          + t
          + " AS t"
          + columns
          + " SELECT ?, 'X', ?, 1, nextval('"
          + SEQUENCE
          + "'), "
          + now
          + " + ?, NULL, 0 FROM turn"
          + " ON CONFLICT (name, kind) DO UPDATE SET version = CASE WHEN "
          + mine
          + " THEN t.version ELSE EXCLUDED.version END, holds = CASE WHEN "
          + mine
          + " THEN t.holds + 1 ELSE 1 END, owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at"
          + " WHERE t.expires_at <= "
          + now
          + " OR t.owner = EXCLUDED.owner RETURNING version, holds";
    }

    /** One more than the greatest token in the table, as the store starts its sequence. */
    private long firstToken() {
      try (Connection c = ds.getConnection();
          PreparedStatement ps =
              c.prepareStatement("SELECT COALESCE(MAX(version), 0) + 1 FROM " + TABLE);
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      } catch (SQLException e) {
        throw new IllegalStateException("could not read the greatest token of " + TABLE, e);
      }
    }

    @Override
    String ownerOfNextHold() {
      return owner + "/" + holds.incrementAndGet();
    }

    @Override
    @Nullable Held tryOnce(String name, String who) throws SQLException {
      try (Connection c = ds.getConnection()) {
        long token = h2 ? acquireMerging(c, name, who) : acquireUpserting(c, name, who);
        return token < 0 ? null : () -> release(name, who, token);
      }
    }

    /** PostgreSQL: the token, or -1 if another owner holds the lock. */
    private long acquireUpserting(Connection c, String name, String who) throws SQLException {
      try (PreparedStatement upsert = c.prepareStatement(acquireSql)) {
        upsert.setString(1, name);
        upsert.setString(2, name);
        upsert.setString(3, who);
        upsert.setLong(4, 30_001);
        try (ResultSet rs = upsert.executeQuery()) {
          return rs.next() ? rs.getLong(1) : -1;
        }
      }
    }

    /**
     * H2: the token, or -1 if another owner holds the lock. A MERGE that wrote no row of ours met a
     * busy lock, or a row that vanished between its two steps (then a read tells which, and it runs
     * again); a duplicate key means a concurrent acquire inserted the row first: again too.
     */
    private long acquireMerging(Connection c, String name, String who) throws SQLException {
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        try (PreparedStatement merge = c.prepareStatement(acquireSql)) {
          merge.setString(1, name);
          merge.setString(2, name);
          merge.setString(3, who);
          merge.setString(4, who);
          merge.setString(5, who);
          merge.setString(6, who);
          merge.setLong(7, 30_001);
          String owner = null;
          long token = -1;
          try (ResultSet rs = merge.executeQuery()) {
            while (rs.next()) {
              owner = rs.getString(1);
              token = rs.getLong(2);
              // The rest of the row, as the store maps it.
              rs.getInt(3);
              rs.getLong(4);
              rs.getLong(5);
            }
          }
          if (who.equals(owner)) {
            return token;
          }
        } catch (SQLException e) {
          if (duplicateKey(e)) {
            continue;
          }
          throw e;
        }
        try (PreparedStatement read = c.prepareStatement(selectRowSql)) {
          read.setString(1, name);
          read.setString(2, KIND);
          try (ResultSet rs = read.executeQuery()) {
            if (rs.next() && rs.getString(1) != null && rs.getLong(2) > rs.getLong(3)) {
              return -1;
            }
          }
        }
      }
      return -1;
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
