package dev.locksmith.etcd;

import dev.locksmith.etcd.fixture.EtcdServer;
import dev.locksmith.tck.ManyLeases;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * One client keeps many auto-renewed leases on a real etcd: its one renewal thread must keep up.
 *
 * <p>An etcd renewal is two or three requests to the JSON gateway, which answers each on its own:
 * one after another they renewed about 80 leases a second on a 2-core machine, fewer than the 160 a
 * second that 800 leases of 5 s need; the store runs a batch's extends eight at a time.
 */
class EtcdManyLeasesTest {

  @Test
  @DisplayName(
      "one client keeps 800 auto-renewed 5 s leases for two lease times past the last acquire:"
          + " none is lost, and the store holds them all")
  void keepsEightHundredLeases() throws Exception {
    try (EtcdServer server = EtcdServer.start()) {
      ManyLeases.assertKept(server.uri(), 800, Duration.ofSeconds(5));
    }
  }
}
