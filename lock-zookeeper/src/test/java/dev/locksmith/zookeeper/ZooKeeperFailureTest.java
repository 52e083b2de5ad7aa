package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.spi.StoreFailure;
import dev.locksmith.zookeeper.internal.ZooKeeperFailure;
import java.io.IOException;
import java.net.ConnectException;
import org.apache.curator.CuratorConnectionLossException;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The kinds the store's {@code classify} finds in ZooKeeper's and Curator's failures. */
class ZooKeeperFailureTest {

  @Test
  @DisplayName(
      "a lost connection or session is 'unavailable', a missing permission 'refused', a request"
          + " timeout 'timed out'")
  void keeperCodes() {
    assertThat(ZooKeeperFailure.kind(KeeperException.create(Code.CONNECTIONLOSS)))
        .isEqualTo(StoreFailure.UNAVAILABLE);
    assertThat(ZooKeeperFailure.kind(KeeperException.create(Code.SESSIONEXPIRED)))
        .isEqualTo(StoreFailure.UNAVAILABLE);
    assertThat(ZooKeeperFailure.kind(KeeperException.create(Code.SESSIONMOVED)))
        .isEqualTo(StoreFailure.UNAVAILABLE);
    assertThat(ZooKeeperFailure.kind(KeeperException.create(Code.NOAUTH, "/locks/x")))
        .isEqualTo(StoreFailure.REFUSED);
    assertThat(ZooKeeperFailure.kind(KeeperException.create(Code.AUTHFAILED)))
        .isEqualTo(StoreFailure.REFUSED);
    assertThat(ZooKeeperFailure.kind(KeeperException.create(Code.OPERATIONTIMEOUT)))
        .isEqualTo(StoreFailure.TIMED_OUT);
    assertThat(ZooKeeperFailure.kind(KeeperException.create(Code.REQUESTTIMEOUT)))
        .isEqualTo(StoreFailure.TIMED_OUT);
    assertThat(ZooKeeperFailure.kind(KeeperException.create(Code.BADVERSION)))
        .isEqualTo(StoreFailure.UNCLASSIFIED);
  }

  @Test
  @DisplayName(
      "Curator's connection timeout is 'unavailable', also as a cause; JDK failures keep their kind")
  void curatorAndJdk() {
    assertThat(ZooKeeperFailure.kind(new CuratorConnectionLossException()))
        .isEqualTo(StoreFailure.UNAVAILABLE);
    assertThat(
            ZooKeeperFailure.kind(new IOException("wrapped", KeeperException.create(Code.NOAUTH))))
        .isEqualTo(StoreFailure.REFUSED);
    assertThat(ZooKeeperFailure.kind(new ConnectException("not connected to ZooKeeper")))
        .isEqualTo(StoreFailure.UNAVAILABLE);
    assertThat(ZooKeeperFailure.kind(new IllegalStateException("something else")))
        .isEqualTo(StoreFailure.UNCLASSIFIED);
  }
}
