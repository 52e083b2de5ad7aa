/** The etcd v3 store, over its JSON gateway with java.net.http. */
module dev.locksmith.etcd {
  requires transitive dev.locksmith.api;
  requires java.net.http;
  requires com.fasterxml.jackson.databind;
  requires org.slf4j;
  requires static org.jspecify;

  exports dev.locksmith.etcd;

  provides dev.locksmith.spi.LockProvider with
      dev.locksmith.etcd.EtcdLockProvider;
}
