package dev.locksmith.memcached;

import dev.locksmith.memcached.fixture.MemcachedInspector;
import dev.locksmith.memcached.internal.StoreKeys;
import dev.locksmith.tck.OutsideActor;
import dev.locksmith.tck.fixture.ServerHandle;
import dev.locksmith.tck.fixture.ServerProcess;

/**
 * A real memcached child process for these tests: the kit's fixture (real {@code SIGSTOP}, {@code
 * SIGCONT}, {@code SIGKILL} and restart on the same port) plus the text-protocol commands the fault
 * tests use ({@code flush_all}, {@code stats}). A missing binary fails with the install command.
 */
final class MemcachedServer extends ServerHandle {

  private MemcachedServer(ServerProcess process) {
    super(process);
  }

  /** Starts memcached with its default memory limit (64 MB). */
  static MemcachedServer start() {
    return start(64);
  }

  /** Starts memcached with a memory limit of {@code megabytes} (tiny limits force eviction). */
  static MemcachedServer start(int megabytes) {
    return new MemcachedServer(
        dev.locksmith.tck.fixture.MemcachedServer.start(megabytes, "-c", "1024"));
  }

  /** Starts memcached with CAS disabled ({@code -C}), which locks must refuse to work with. */
  static MemcachedServer startWithoutCas() {
    return new MemcachedServer(
        dev.locksmith.tck.fixture.MemcachedServer.start(64, "-c", "1024", "-C"));
  }

  String uri() {
    return "memcached://" + address();
  }

  /** Counts and evicts items under a key prefix, as the kit's fixture does. */
  MemcachedInspector inspector() {
    return new MemcachedInspector("127.0.0.1", port());
  }

  /**
   * An operator with a text-protocol connection: deletes a lock's item under the default key
   * prefix, behind the lock clients' backs.
   */
  OutsideActor outsideActor() {
    StoreKeys keys = new StoreKeys(MemcachedLockStore.DEFAULT_KEY_PREFIX);
    return (name, mode) -> {
      String reply = command("delete " + keys.lock(name));
      if (!reply.startsWith("DELETED") && !reply.startsWith("NOT_FOUND")) {
        throw new IllegalStateException("delete answered " + reply);
      }
    };
  }

  void flushAll() {
    String reply = command("flush_all");
    if (!reply.startsWith("OK")) {
      throw new IllegalStateException("flush_all answered " + reply);
    }
  }

  /** One statistic from {@code stats}, such as {@code evictions}. */
  long stat(String name) {
    String reply = command("stats");
    for (String line : reply.split("\r\n")) {
      String[] parts = line.split(" ");
      if (parts.length == 3 && parts[0].equals("STAT") && parts[1].equals(name)) {
        return Long.parseLong(parts[2]);
      }
    }
    throw new IllegalStateException("memcached stats has no " + name + ": " + reply);
  }

  private String command(String line) {
    return dev.locksmith.tck.fixture.MemcachedServer.command(process, line);
  }
}
