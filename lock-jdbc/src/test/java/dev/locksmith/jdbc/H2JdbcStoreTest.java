package dev.locksmith.jdbc;

import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** The JDBC store's own promises on H2 in memory. */
class H2JdbcStoreTest extends JdbcStoreBehaviour {

  private static final String URL = TestDatabases.newH2Url();

  @Override
  String lockUri() {
    return URL;
  }

  @Override
  DataSource dataSource() {
    JdbcDataSource ds = new JdbcDataSource();
    ds.setURL(URL);
    return ds;
  }
}
