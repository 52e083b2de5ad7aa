/**
 * The ZooKeeper store: ephemeral-sequential locks and read-write locks on Apache Curator.
 *
 * <p>ZooKeeper's two jars split two packages ({@code org.apache.zookeeper.server.quorum} and {@code
 * .persistence} are in both {@code zookeeper} and {@code zookeeper-jute}), so they cannot be two
 * modules: on the module path, leave {@code zookeeper-jute} off it and add it to the {@code
 * zookeeper} module with {@code --patch-module zookeeper=zookeeper-jute-<version>.jar}, as this
 * module's build does (see the module's README).
 */
module dev.locksmith.zookeeper {
  requires transitive dev.locksmith.api;
  requires transitive curator.framework;
  requires curator.client;
  requires transitive zookeeper;
  requires org.slf4j;
  requires static org.jspecify;

  exports dev.locksmith.zookeeper;

  provides dev.locksmith.spi.LockProvider with
      dev.locksmith.zookeeper.ZooKeeperLockProvider;
}
