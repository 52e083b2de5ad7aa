package dev.locksmith.jdbc;

import dev.locksmith.Lease;
import dev.locksmith.LockStoreException;
import dev.locksmith.StaleTokenException;
import dev.locksmith.jdbc.internal.SqlDialect;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A SQL table of the caller's whose rows remember the highest {@linkplain Lease#fencingToken()
 * fencing token} that wrote them and refuse writes with a lower one: a holder that lost its lock (a
 * GC pause, a stopped process) can no longer overwrite what the next holder wrote.
 *
 * <pre>{@code
 * FencedTable orders = new FencedTable(dataSource, "orders");   // columns id, fence, ...
 * try (Lease lease = client.lock("orders:42").acquire(Duration.ofSeconds(5))) {
 *   orders.write(42L, lease.fencingToken(), Map.of("status", "PAID", "amount", 1250));
 * }
 * }</pre>
 *
 * <p>The table is the caller's: a key column ({@code id} by default) that is the primary key or
 * unique, a {@code BIGINT} fence column ({@code fence} by default) and any other columns. A write
 * is one {@code UPDATE t SET <columns> = ?, fence = ? WHERE id = ? AND (fence <= ? OR fence IS
 * NULL)}: the check and the write are one statement under the row's lock, so two writers cannot
 * both pass the check. A missing row is inserted with the write's token. {@link #write} returns
 * only once the write was applied; it is refused with {@link StaleTokenException}, naming the row's
 * current fence, when the row's fence is greater than the token. An <b>equal</b> token is accepted,
 * so one holder may write several times; two holders never share a token on one lock name. A row
 * whose fence is NULL (an existing table that just got the column) accepts any token. Guard each
 * row with one lock name: tokens of different names are not comparable.
 *
 * <p>Runs on H2, PostgreSQL, MariaDB and MySQL. Table and column names are checked against {@code
 * [A-Za-z_][A-Za-z0-9_]{0,62}} (a table may be {@code schema.table}) and are the only text put in
 * the SQL; ids and values are always bound parameters. Statements run through a Spring {@link
 * JdbcTemplate}, so a write joins the Spring transaction open on the same data source, if any (then
 * the row stays locked, and newer writers wait, until it commits), and is auto-committed otherwise.
 * A failure of the database (unreachable, timed out, a constraint of the caller's table) throws
 * {@link LockStoreException} with Spring's exception as cause: the write may or may not have been
 * applied, but it is never reported as applied when it was not. Thread-safe.
 */
public final class FencedTable {

  /** The key column of {@link #FencedTable(DataSource, String)}. */
  public static final String DEFAULT_ID_COLUMN = "id";

  /** The fence column of {@link #FencedTable(DataSource, String)}. */
  public static final String DEFAULT_FENCE_COLUMN = "fence";

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
  // A write retries when the row changes between its statements (inserted or deleted by others).
  private static final int ATTEMPTS = 16;

  private final JdbcTemplate jdbc;
  private final String table;
  private final String idColumn;
  private final String fenceColumn;
  private volatile @Nullable SqlDialect dialect;

  /**
   * A fenced table named {@code table} with the key column {@value #DEFAULT_ID_COLUMN} and the
   * fence column {@value #DEFAULT_FENCE_COLUMN}.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code table} is not a plain identifier or {@code
   *     schema.table}
   */
  public FencedTable(DataSource dataSource, String table) {
    this(dataSource, table, DEFAULT_ID_COLUMN, DEFAULT_FENCE_COLUMN);
  }

  /**
   * A fenced table named {@code table} whose rows are keyed by {@code idColumn} (its primary key or
   * unique) and whose fence is {@code fenceColumn} (a {@code BIGINT}). Nothing is checked in the
   * database until the first statement.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if a name is not a plain identifier ({@code table} may be
   *     {@code schema.table}), or both columns are the same
   */
  public FencedTable(DataSource dataSource, String table, String idColumn, String fenceColumn) {
    Objects.requireNonNull(dataSource, "dataSource must not be null");
    this.table = tableName(table);
    this.idColumn = identifier("idColumn", idColumn);
    this.fenceColumn = identifier("fenceColumn", fenceColumn);
    if (idColumn.equalsIgnoreCase(fenceColumn)) {
      throw new IllegalArgumentException(
          "idColumn and fenceColumn must be two columns, both are '" + idColumn + "'");
    }
    this.jdbc = new JdbcTemplate(dataSource);
  }

  /** The table's name, as given. */
  public String table() {
    return table;
  }

  /**
   * Writes {@code columns} to the row {@code id} if {@code token} is at least the row's fence, and
   * sets the fence to {@code token}; inserts the row if it is missing. Returns only when the write
   * was applied.
   *
   * @param id the row's key, bound as a parameter (any type the driver binds)
   * @param token the writer's {@link Lease#fencingToken()}
   * @param columns the caller's columns and their new values (a value may be null, for SQL NULL);
   *     may be empty, which only raises the fence
   * @throws StaleTokenException if the row's fence is greater than {@code token}; nothing was
   *     written
   * @throws NullPointerException if {@code id}, {@code columns} or a column name is null
   * @throws IllegalArgumentException if {@code token} is negative, a column name is not a plain
   *     identifier, is the key or fence column, or appears twice (names compare without case)
   * @throws LockStoreException if the database failed or refused the statement; the write may or
   *     may not have been applied
   */
  public void write(Object id, long token, Map<String, ?> columns) {
    Objects.requireNonNull(id, "id must not be null");
    checkToken(token);
    Map<String, @Nullable Object> values = checkColumns(columns);
    String update = updateSql(values.keySet());
    List<@Nullable Object> updateArgs = new ArrayList<>(values.values());
    updateArgs.add(token);
    updateArgs.add(id);
    updateArgs.add(token);
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (run(id, token, () -> jdbc.update(update, updateArgs.toArray())) > 0) {
        return;
      }
      // Nothing matched: the row is missing, or its fence is above the token.
      Row row = read(id, token);
      if (row.exists()) {
        if (row.fence() != null && row.fence() > token) {
          throw new StaleTokenException(resource(id), token, row.fence());
        }
        continue; // it changed between the two statements: decide again
      }
      if (insert(id, token, values)) {
        return;
      }
      // Someone else inserted the row first: its fence decides.
    }
    throw new LockStoreException(
        "write to "
            + resource(id)
            + " with token "
            + token
            + " gave up: the row changed under each of "
            + ATTEMPTS
            + " attempts");
  }

  /**
   * The row's fence: the highest token that wrote it; empty if the row is missing or its fence is
   * NULL.
   *
   * @throws NullPointerException if {@code id} is null
   * @throws LockStoreException if the database failed
   */
  public OptionalLong fence(Object id) {
    Objects.requireNonNull(id, "id must not be null");
    Row row = read(id, -1);
    return row.fence() == null ? OptionalLong.empty() : OptionalLong.of(row.fence());
  }

  private String updateSql(Set<String> columns) {
    StringBuilder sql = new StringBuilder("UPDATE ").append(table).append(" SET ");
    for (String c : columns) {
      sql.append(c).append(" = ?, ");
    }
    return sql.append(fenceColumn)
        .append(" = ? WHERE ")
        .append(idColumn)
        .append(" = ? AND (")
        .append(fenceColumn)
        .append(" <= ? OR ")
        .append(fenceColumn)
        .append(" IS NULL)")
        .toString();
  }

  /** Inserts the row; false if a row with that id exists (inserted by someone else meanwhile). */
  private boolean insert(Object id, long token, Map<String, @Nullable Object> values) {
    StringBuilder sql =
        new StringBuilder("INSERT INTO ").append(table).append(" (").append(idColumn);
    values.keySet().forEach(c -> sql.append(", ").append(c));
    sql.append(", ").append(fenceColumn).append(") VALUES (?");
    sql.append(", ?".repeat(values.size() + 1)).append(')');
    List<@Nullable Object> args = new ArrayList<>();
    args.add(id);
    args.addAll(values.values());
    args.add(token);
    // On PostgreSQL a failed statement would abort the caller's transaction: skip the duplicate.
    String statement =
        dialect() == SqlDialect.POSTGRESQL ? sql + " ON CONFLICT DO NOTHING" : sql.toString();
    try {
      return run(id, token, () -> jdbc.update(statement, args.toArray())) > 0;
    } catch (LockStoreException e) {
      if (e.getCause() instanceof DuplicateKeyException) {
        return false;
      }
      throw e;
    }
  }

  private Row read(Object id, long token) {
    String sql = "SELECT " + fenceColumn + " FROM " + table + " WHERE " + idColumn + " = ?";
    List<@Nullable Long> fences =
        run(id, token, () -> jdbc.query(sql, (rs, n) -> rs.getObject(1, Long.class), id));
    return fences.isEmpty() ? Row.MISSING : new Row(true, fences.get(0));
  }

  private SqlDialect dialect() {
    SqlDialect d = dialect;
    if (d == null) {
      d =
          Objects.requireNonNull(
              run(
                  "?",
                  -1,
                  () ->
                      jdbc.execute(
                          (ConnectionCallback<SqlDialect>)
                              c -> SqlDialect.detect(c.getMetaData()))));
      dialect = d;
    }
    return d;
  }

  private <T> T run(Object id, long token, Supplier<T> statement) {
    try {
      return statement.get();
    } catch (DataAccessException e) {
      throw new LockStoreException(
          (token < 0 ? "read of " : "write with token " + token + " to ")
              + resource(id)
              + " failed; "
              + (token < 0 ? "" : "it may or may not have been applied; ")
              + e.getMessage(),
          e);
    }
  }

  private String resource(Object id) {
    return "table " + table + " row " + idColumn + "=" + id;
  }

  private Map<String, @Nullable Object> checkColumns(Map<String, ?> columns) {
    Objects.requireNonNull(columns, "columns must not be null");
    Map<String, @Nullable Object> checked = new LinkedHashMap<>();
    Set<String> seen = new HashSet<>();
    for (Map.Entry<String, ?> e : columns.entrySet()) {
      String name = identifier("column name", e.getKey());
      String folded = name.toLowerCase(Locale.ROOT);
      if (folded.equals(idColumn.toLowerCase(Locale.ROOT))
          || folded.equals(fenceColumn.toLowerCase(Locale.ROOT))) {
        throw new IllegalArgumentException(
            "column '"
                + name
                + "' is the key or the fence column; the id and token parameters set those");
      }
      if (!seen.add(folded)) {
        throw new IllegalArgumentException(
            "column '" + name + "' appears twice (SQL names compare without case)");
      }
      checked.put(name, e.getValue());
    }
    return checked;
  }

  private static void checkToken(long token) {
    if (token < 0) {
      throw new IllegalArgumentException(
          "token must not be negative, was " + token + " (pass Lease.fencingToken())");
    }
  }

  private static String tableName(String table) {
    Objects.requireNonNull(table, "table must not be null");
    int dot = table.indexOf('.');
    if (dot < 0) {
      return identifier("table", table);
    }
    identifier("table's schema", table.substring(0, dot));
    identifier("table", table.substring(dot + 1));
    return table;
  }

  private static String identifier(String what, @Nullable String name) {
    Objects.requireNonNull(name, () -> what + " must not be null");
    if (!IDENTIFIER.matcher(name).matches()) {
      throw new IllegalArgumentException(
          what
              + " must be a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*, at most 63 characters),"
              + " was '"
              + name
              + "'");
    }
    return name;
  }

  /** What a read of the row found: whether it exists, and its fence (null if NULL or missing). */
  private record Row(boolean exists, @Nullable Long fence) {
    static final Row MISSING = new Row(false, null);
  }
}
