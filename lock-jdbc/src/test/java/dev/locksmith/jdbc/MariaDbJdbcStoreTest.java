package dev.locksmith.jdbc;

import javax.sql.DataSource;

/** The JDBC store's own promises on a real MariaDB server. */
class MariaDbJdbcStoreTest extends JdbcStoreBehaviour {

  @Override
  String lockUri() {
    return TestDatabases.mariaDb().lockUri("");
  }

  @Override
  DataSource dataSource() {
    return TestDatabases.mariaDb().dataSource();
  }
}
