package dev.locksmith.jdbc.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * What differs between the databases the JDBC store runs on: how to read the database clock, how to
 * get the row an UPDATE wrote, how to insert without failing on a duplicate, and which DDL file
 * creates the table.
 */
public enum SqlDialect {
  /**
   * H2 2.x; {@code FINAL TABLE (UPDATE …)} returns the updated row. The clock is integer arithmetic
   * ({@code EXTRACT(EPOCH …) * 1000} is DECIMAL division, which dominated the acquire's cost).
   * {@code DATEDIFF} compares local date-times and ignores offsets, so both sides are put in UTC
   * first: without {@code AT TIME ZONE 'UTC'} the value is off by the session's zone offset and
   * jumps at daylight-saving changes.
   */
  H2(
      "h2",
      "DATEDIFF(MILLISECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00',"
          + " CURRENT_TIMESTAMP AT TIME ZONE 'UTC')",
      true,
      ""),
  /** PostgreSQL; {@code UPDATE … RETURNING} and {@code INSERT … ON CONFLICT DO NOTHING}. */
  POSTGRESQL(
      "postgresql",
      "CAST(FLOOR(EXTRACT(EPOCH FROM now()) * 1000) AS BIGINT)",
      true,
      " ON CONFLICT DO NOTHING"),
  /**
   * MariaDB; no UPDATE … RETURNING, so acquire reads the row and writes it back version-guarded.
   */
  MARIADB(
      "mariadb",
      "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)",
      false,
      ""),
  /** MySQL 8; like MariaDB. */
  MYSQL(
      "mysql",
      "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)",
      false,
      "");

  private final String id;
  private final String nowMillis;
  private final boolean updateReturning;
  private final String insertIgnoreSuffix;

  SqlDialect(String id, String nowMillis, boolean updateReturning, String insertIgnoreSuffix) {
    this.id = id;
    this.nowMillis = nowMillis;
    this.updateReturning = updateReturning;
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

  /** Whether an UPDATE can return the row it wrote in the same statement. */
  public boolean updateReturning() {
    return updateReturning;
  }

  /** The classpath resource holding this dialect's DDL. */
  public String ddlResource() {
    return "/dev/locksmith/jdbc/ddl/" + id + ".sql";
  }

  /**
   * The statements that create {@code table} and {@code readers} (qualified, validated names) if
   * missing, separated by {@code ;}, from {@link #ddlResource()}.
   */
  public String ddl(String table, String readers) {
    try (InputStream in = SqlDialect.class.getResourceAsStream(ddlResource())) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + ddlResource());
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .replaceAll("(?m)^--.*$", "")
          .replace("${table}", table)
          .replace("${readers}", readers);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + ddlResource(), e);
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
   * {@code update} (an UPDATE statement) rewritten to return {@code columns} of the updated row.
   *
   * @throws IllegalStateException for dialects without {@link #updateReturning()}
   */
  public String returning(String update, String columns) {
    switch (this) {
      case H2:
        return "SELECT " + columns + " FROM FINAL TABLE (" + update + ")";
      case POSTGRESQL:
        return update + " RETURNING " + columns;
      default:
        throw new IllegalStateException(id + " has no UPDATE … RETURNING");
    }
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
