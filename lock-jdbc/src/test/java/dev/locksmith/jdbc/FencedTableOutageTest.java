package dev.locksmith.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.LockStoreException;
import dev.locksmith.StaleTokenException;
import dev.locksmith.jdbc.fixture.H2TcpServer;
import java.util.Map;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/** {@link FencedTable} when its database goes away: an exception, never a silent success. */
class FencedTableOutageTest {

  @Test
  @DisplayName("A write to a killed database fails as a store failure; the fence survives restart")
  void outageIsAStoreFailureNotARefusalOrASuccess() {
    try (H2TcpServer server = H2TcpServer.start()) {
      JdbcDataSource ds = new JdbcDataSource();
      ds.setURL(
          "jdbc:h2:tcp://127.0.0.1:"
              + server.port()
              + "/fenced;NETWORK_TIMEOUT=2000;WRITE_DELAY=0");
      new JdbcTemplate(ds)
          .execute("CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(20), fence BIGINT)");
      FencedTable orders = new FencedTable(ds, "orders");
      orders.write(1L, 10, Map.of("status", "PAID"));

      server.faults().kill();
      assertThatThrownBy(() -> orders.write(1L, 11, Map.of("status", "SHIPPED")))
          .isInstanceOf(LockStoreException.class)
          .isNotInstanceOf(StaleTokenException.class)
          .hasMessageContaining("may or may not have been applied");
      assertThatThrownBy(() -> orders.fence(1L)).isInstanceOf(LockStoreException.class);

      server.faults().restart();
      assertThatThrownBy(() -> orders.write(1L, 9, Map.of("status", "LATE")))
          .isInstanceOf(StaleTokenException.class);
      orders.write(1L, 11, Map.of("status", "SHIPPED"));
      assertThat(orders.fence(1L)).hasValue(11);
    }
  }
}
