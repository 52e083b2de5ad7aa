package dev.locksmith.jdbc;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** {@link FencedTable} on H2 in memory. */
class H2FencedTableTest extends FencedTableBehaviour {

  private static final String URL = TestDatabases.newH2Url();

  @Override
  DataSource dataSource() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL(URL);
    return ds;
  }

  @Override
  String lockUri() {
    return URL;
  }

  @Override
  String database() {
    return "h2";
  }
}
