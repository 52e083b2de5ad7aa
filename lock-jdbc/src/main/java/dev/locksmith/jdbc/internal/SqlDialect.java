package dev.locksmith.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * What differs between the databases the JDBC store runs on: how to read the database clock, where
 * the fencing tokens come from, how an exclusive lock is taken in as few statements as the database
 * allows, how to delete a bounded number of rows, and which DDL file creates the tables.
 */
public enum SqlDialect {
  /**
   * H2 2.x; {@code FINAL TABLE (MERGE …)} returns the rows the statement wrote. The clock is
   * integer arithmetic ({@code EXTRACT(EPOCH …) * 1000} is DECIMAL division, which dominated the
   * acquire's cost). {@code DATEDIFF} compares local date-times and ignores offsets, so both sides
   * are put in UTC first: without {@code AT TIME ZONE 'UTC'} the value is off by the session's zone
   * offset and jumps at daylight-saving changes.
   */
  H2(
      "h2",
      "DATEDIFF(MILLISECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00',"
          + " CURRENT_TIMESTAMP AT TIME ZONE 'UTC')",
      ""),
  /**
   * PostgreSQL 9.5 or later; {@code INSERT … ON CONFLICT DO UPDATE … RETURNING} takes, re-enters
   * and takes over in one statement.
   */
  POSTGRESQL(
      "postgresql",
      "CAST(FLOOR(EXTRACT(EPOCH FROM now()) * 1000) AS BIGINT)",
      " ON CONFLICT DO NOTHING"),
  /**
   * MariaDB 10.5 or later (sequences since 10.3, {@code INSERT … RETURNING} since 10.5); {@code
   * INSERT … ON DUPLICATE KEY UPDATE … RETURNING} takes, re-enters and takes over in one statement.
   */
  MARIADB(
      "mariadb",
      "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)",
      ""),
  /**
   * MySQL 8; the statements of MariaDB without sequences and without {@code RETURNING}: tokens come
   * from a one-row counter table through {@code LAST_INSERT_ID(expr)}.
   */
  MYSQL(
      "mysql",
      "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)",
      "");

  private final String id;
  private final String nowMillis;
  private final String insertIgnoreSuffix;

  SqlDialect(String id, String nowMillis, String insertIgnoreSuffix) {
    this.id = id;
    this.nowMillis = nowMillis;
    this.insertIgnoreSuffix = insertIgnoreSuffix;
  }

  /** The dialect of the database behind {@code meta}. */
  public static SqlDialect detect(DatabaseMetaData meta) throws SQLException {
    String product = String.valueOf(meta.getDatabaseProductName()).toLowerCase(Locale.ROOT);
    String version = String.valueOf(meta.getDatabaseProductVersion()).toLowerCase(Locale.ROOT);
    if (product.contains("h2")) {
      return H2;
    }
    if (product.contains("postgresql")) {
      return POSTGRESQL;
    }
    // MySQL Connector/J reports a MariaDB server as "MySQL"; its version string tells them apart.
    if (product.contains("mariadb") || version.contains("mariadb")) {
      return MARIADB;
    }
    if (product.contains("mysql")) {
      return MYSQL;
    }
    throw new IllegalArgumentException(
        "the JDBC lock store supports H2, PostgreSQL, MariaDB and MySQL; this database is '"
            + meta.getDatabaseProductName()
            + "'");
  }

  /** The short name used in {@code describe()} and for the DDL resource. */
  public String id() {
    return id;
  }

  /** An SQL expression for the database clock's now, in milliseconds since the epoch. */
  public String nowMillis() {
    return nowMillis;
  }

  /**
   * Whether the driver's {@code Statement.setQueryTimeout} changes a setting of the whole session
   * rather than of one statement. H2's does: every call runs {@code SET QUERY_TIMEOUT}, and like
   * any {@code SET} that invalidates the parsed statements of every session of the database, so
   * that each following statement is parsed again. On such a driver the store sets the timeout once
   * per connection instead of once per statement.
   */
  public boolean sessionWideQueryTimeout() {
    return this == H2;
  }

  /** Whether the tokens come from a real sequence (every dialect but MySQL). */
  public boolean hasSequences() {
    return this != MYSQL;
  }

  /**
   * An SQL expression that draws the next value of {@code sequence} (a qualified, validated name).
   *
   * @throws IllegalStateException for MySQL, which has no sequences
   */
  public String nextValue(String sequence) {
    return switch (this) {
      case H2 -> "NEXT VALUE FOR " + sequence;
      case POSTGRESQL -> "nextval('" + sequence + "')";
      case MARIADB -> "NEXTVAL(" + sequence + ")";
      case MYSQL -> throw new IllegalStateException("MySQL has no sequences");
    };
  }

  /**
   * The statement that draws one token: a query of the sequence's next value, or on MySQL an UPDATE
   * of the counter row whose new value the driver reports as the generated key.
   */
  public String drawToken(String sequence) {
    return this == MYSQL
        ? "UPDATE " + sequence + " SET last_token = LAST_INSERT_ID(last_token + 1) WHERE id = 1"
        : "SELECT " + nextValue(sequence);
  }

  /**
   * {@code DELETE FROM table WHERE condition}, deleting at most as many rows as the last parameter
   * says. {@code keyColumns} name the table's primary key; PostgreSQL, which has no {@code DELETE …
   * LIMIT}, deletes the keys of a limited subquery and checks the condition again on each row it
   * deletes, so that a row a concurrent statement just made live is skipped. On PostgreSQL the
   * condition's parameters come twice, before and after the limit ({@link #limitedDeleteArgs}).
   */
  public String limitedDelete(String table, String keyColumns, String condition) {
    if (this == POSTGRESQL) {
      return "DELETE FROM "
          + table
          + " WHERE ("
          + keyColumns
          + ") IN (SELECT "
          + keyColumns
          + " FROM "
          + table
          + " WHERE "
          + condition
          + " LIMIT ?) AND "
          + condition;
    }
    return "DELETE FROM " + table + " WHERE " + condition + " LIMIT ?";
  }

  /** The parameters of a {@link #limitedDelete} whose condition takes {@code conditionArgs}. */
  public Object[] limitedDeleteArgs(Object[] conditionArgs, int limit) {
    List<Object> args = new ArrayList<>(List.of(conditionArgs));
    args.add(limit);
    if (this == POSTGRESQL) {
      args.addAll(List.of(conditionArgs));
    }
    return args.toArray();
  }

  /** The classpath resource holding this dialect's DDL. */
  public String ddlResource() {
    return "/dev/locksmith/jdbc/ddl/" + id + ".sql";
  }

  /**
   * The statements of {@link #ddlResource()} for {@code table}, {@code readers} and {@code
   * sequence} (qualified, validated names), split into those that create the tables and those that
   * create the token source (which need the first token, see {@link Ddl#tokenSource}).
   */
  public Ddl ddl(String table, String readers, String sequence) {
    String script;
    try (InputStream in = SqlDialect.class.getResourceAsStream(ddlResource())) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + ddlResource());
      }
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + ddlResource(), e);
    }
    List<String> tables = new ArrayList<>();
    List<String> tokens = new ArrayList<>();
    for (String statement : script.replaceAll("(?m)^--.*$", "").split(";")) {
      if (statement.isBlank()) {
        continue;
      }
      String s =
          statement
              .strip()
              .replace("${table}", table)
              .replace("${readers}", readers)
              .replace("${sequence}", sequence);
      (statement.contains("${sequence}") ? tokens : tables).add(s);
    }
    return new Ddl(List.copyOf(tables), List.copyOf(tokens));
  }

  /**
   * The DDL of one dialect.
   *
   * @param tables creates the lock tables if missing
   * @param tokenSource creates the token source if missing, with {@code ${start}} in place of the
   *     first token
   */
  public record Ddl(List<String> tables, List<String> tokenSource) {

    /** {@link #tokenSource} with the first token {@code start}. */
    public List<String> tokenSource(long start) {
      return tokenSource.stream().map(s -> s.replace("${start}", Long.toString(start))).toList();
    }
  }

  /**
   * A query whose one value is NULL when the database keeps its rows in memory only (and forgets
   * them, with the fencing tokens, when it closes); null for databases that always keep them.
   */
  public @Nullable String inMemoryProbe() {
    return this == H2 ? "SELECT DATABASE_PATH()" : null;
  }

  /**
   * {@code insert} rewritten so that a duplicate key inserts nothing instead of failing, where the
   * database can (PostgreSQL, where a failed statement would abort the transaction); elsewhere the
   * caller treats a duplicate-key error as "inserted nothing".
   */
  public String insertIgnoringDuplicate(String insert) {
    return insert + insertIgnoreSuffix;
  }
}
