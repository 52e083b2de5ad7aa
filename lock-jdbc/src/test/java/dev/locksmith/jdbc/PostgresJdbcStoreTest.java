package dev.locksmith.jdbc;

import javax.sql.DataSource;

/** The JDBC store's own promises on a real PostgreSQL server. */
class PostgresJdbcStoreTest extends JdbcStoreBehaviour {

  @Override
  String lockUri() {
    return TestDatabases.postgres().lockUri("");
  }

  @Override
  DataSource dataSource() {
    return TestDatabases.postgres().dataSource();
  }
}
