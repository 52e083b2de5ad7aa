package dev.locksmith.jdbc;

import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockUri;
import dev.locksmith.tck.OutsideActor;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;

/**
 * An operator with a plain JDBC connection: deletes a lock's rows from the default lock tables,
 * behind the lock clients' backs.
 */
final class JdbcOutsideActor implements OutsideActor {

  private final String url;
  private final Properties properties = new Properties();

  /** An actor on the database of {@code lockUri} (a lock URI: a JDBC URL with query options). */
  JdbcOutsideActor(String lockUri) {
    LockUri uri = LockUri.parse(lockUri);
    this.url = "jdbc:" + uri.body();
    for (Map.Entry<String, String> option : uri.options().entrySet()) {
      if (!option.getKey().startsWith("locksmith.")) {
        properties.setProperty(option.getKey(), option.getValue());
      }
    }
  }

  @Override
  public void deleteHolds(String name, LockMode mode) {
    String table = JdbcLockStoreOptions.DEFAULT_TABLE;
    String sql =
        mode == LockMode.READ
            ? "DELETE FROM " + table + "_readers WHERE name = ?"
            : "DELETE FROM " + table + " WHERE name = ? AND kind = ?";
    try (Connection c = DriverManager.getConnection(url, properties);
        PreparedStatement ps = c.prepareStatement(sql)) {
      c.setAutoCommit(true);
      ps.setString(1, name);
      if (mode != LockMode.READ) {
        ps.setString(2, mode == LockMode.EXCLUSIVE ? "X" : "W");
      }
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("deleting the rows of lock '" + name + "' failed", e);
    }
  }
}
