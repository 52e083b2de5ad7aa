package dev.locksmith.jdbc;

import javax.sql.DataSource;

/** {@link FencedTable} on a real PostgreSQL server. */
class PostgresFencedTableTest extends FencedTableBehaviour {

  @Override
  DataSource dataSource() {
    return TestDatabases.postgres().dataSource();
  }

  @Override
  String lockUri() {
    return TestDatabases.postgres().lockUri("");
  }

  @Override
  String database() {
    return "postgresql";
  }
}
