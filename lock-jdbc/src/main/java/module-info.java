/** The SQL store (H2, PostgreSQL, MariaDB/MySQL), on spring-jdbc. */
module dev.locksmith.jdbc {
  requires transitive dev.locksmith.api;
  requires transitive java.sql;
  requires spring.core;
  requires spring.jdbc;
  requires spring.tx;
  requires com.zaxxer.hikari;
  requires org.slf4j;
  requires static org.jspecify;

  exports dev.locksmith.jdbc;

  provides dev.locksmith.spi.LockProvider with
      dev.locksmith.jdbc.JdbcLockProvider;
}
