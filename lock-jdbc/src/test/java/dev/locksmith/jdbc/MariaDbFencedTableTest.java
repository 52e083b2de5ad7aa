package dev.locksmith.jdbc;

import javax.sql.DataSource;

/** {@link FencedTable} on a real MariaDB server. */
class MariaDbFencedTableTest extends FencedTableBehaviour {

  @Override
  DataSource dataSource() {
    return TestDatabases.mariaDb().dataSource();
  }

  @Override
  String lockUri() {
    return TestDatabases.mariaDb().lockUri("");
  }

  @Override
  String database() {
    return "mariadb";
  }
}
