package dev.locksmith.spring.internal;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.jdbc.JdbcLockStore;
import dev.locksmith.jdbc.JdbcLockStoreOptions;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Builds the JDBC store on the application's {@link DataSource}; its own class so that lock-jdbc
 * (optional for the starter) is loaded only when it is on the class path.
 */
public final class JdbcStores {

  private JdbcStores() {}

  /**
   * A client on a lock table in {@code dataSource} (created if missing), whose names get {@code
   * keyPrefix}.
   */
  public static LockClient onDataSource(
      DataSource dataSource, @Nullable String keyPrefix, LockOptions options) {
    JdbcLockStoreOptions.Builder table = JdbcLockStoreOptions.builder();
    if (keyPrefix != null) {
      table.keyPrefix(keyPrefix);
    }
    return LockClient.of(new JdbcLockStore(dataSource, table.build()), options);
  }
}
