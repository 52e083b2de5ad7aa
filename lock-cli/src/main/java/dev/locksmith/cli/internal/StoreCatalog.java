package dev.locksmith.cli.internal;

import dev.locksmith.tck.fixture.RunningStore;
import dev.locksmith.tck.fixture.StoreFixture;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The stores the comparison can start by itself: every {@link StoreFixture} on the class path
 * (found by {@code ServiceLoader}: the built-in stores' fixtures jars, and those of any store added
 * with {@code --jars} or {@code LOCKSMITH_JARS}), available when its fixture can start it here.
 */
public final class StoreCatalog {

  /** A store the catalog can start, and why it cannot when it cannot. */
  public record Entry(StoreFixture fixture, String unavailableBecause) {
    /** The store's short name. */
    public String name() {
      return fixture.name();
    }

    /** Whether it can be started here. */
    public boolean available() {
      return unavailableBecause.isEmpty();
    }

    /** Starts the store as a comparison target; the target stops it when closed. */
    public StoreTarget start() {
      // Stores start one at a time, so the children that appear meanwhile are this store's.
      Set<Long> before = ChildProcesses.now();
      RunningStore running = fixture.start();
      return StoreTarget.of(name(), running, ChildProcesses.startedSince(before));
    }
  }

  /** The names {@code --stores} takes, for the help text: the fixtures on the class path. */
  public static final class Names implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      List<String> names = new ArrayList<>();
      StoreFixture.all().forEach(f -> names.add(f.name()));
      return names.iterator();
    }
  }

  private final Map<String, Entry> entries = new LinkedHashMap<>();

  /** The catalog of this machine and class path. */
  public static StoreCatalog local() {
    StoreCatalog c = new StoreCatalog();
    for (StoreFixture f : StoreFixture.all()) {
      c.entries.put(f.name(), new Entry(f, f.unavailableBecause().orElse("")));
    }
    return c;
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
}
