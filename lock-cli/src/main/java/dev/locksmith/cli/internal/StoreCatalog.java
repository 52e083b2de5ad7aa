package dev.locksmith.cli.internal;

import dev.locksmith.mem.MemLockSpace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The stores the comparison can start by itself: the embedded ones (mem, H2, in-process ZooKeeper)
 * always, Redis and Memcached when their server binaries are on the PATH.
 */
public final class StoreCatalog {

  /** A store the catalog can start, and why it cannot when it cannot. */
  public record Entry(String name, Supplier<StoreTarget> start, String unavailableBecause) {
    /** Whether it can be started here. */
    public boolean available() {
      return unavailableBecause.isEmpty();
    }
  }

  private final Map<String, Entry> entries = new LinkedHashMap<>();

  /** The catalog of this machine. */
  public static StoreCatalog local() {
    StoreCatalog c = new StoreCatalog();
    c.add(new Entry("mem", StoreCatalog::mem, ""));
    return c;
  }

  private void add(Entry e) {
    entries.put(e.name(), e);
  }

  /** Every store the catalog knows, available here or not. */
  public List<Entry> all() {
    return new ArrayList<>(entries.values());
  }

  /** The store called {@code name}, if the catalog knows it. */
  public Entry get(String name) {
    Entry e = entries.get(name);
    if (e == null) {
      throw new IllegalArgumentException(
          "unknown store '" + name + "'; known stores: " + String.join(", ", entries.keySet()));
    }
    return e;
  }

  private static StoreTarget mem() {
    String space = "compare-" + UUID.randomUUID().toString().substring(0, 8);
    MemLockSpace s = MemLockSpace.named(space);
    ServerControl control =
        new ServerControl() {
          @Override
          public void pause() {
            s.outage(true);
          }

          @Override
          public void resume() {
            s.outage(false);
          }

          @Override
          public void kill() {
            s.outage(true);
            s.restart();
          }

          @Override
          public void restart() {
            s.outage(false);
          }
        };
    return new StoreTarget("mem", "mem:" + space, control, Duration.ofMillis(500));
  }
}
