package dev.locksmith.mem;

import dev.locksmith.LockOptions;
import dev.locksmith.spi.LockProvider;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.LockUri;
import java.util.Set;

/**
 * Opens the in-process store for {@code mem:} URIs: {@code mem:} is the JVM's default space, {@code
 * mem:NAME} a space of its own (letters, digits, {@code -_.}), shared by every client that opens
 * the same name. {@code ?waiters=queue} makes its waiters queue in order ({@code FAIR_QUEUE})
 * instead of polling.
 */
public final class MemLockProvider implements LockProvider {

  @Override
  public Set<String> schemes() {
    return Set.of("mem");
  }

  @Override
  public Set<String> options() {
    return Set.of("waiters");
  }

  @Override
  public LockStore open(LockUri uri, LockOptions options) {
    String waiting = uri.option("waiters").orElse("poll");
    MemLockStore.Waiters waiters;
    switch (waiting) {
      case "poll":
        waiters = MemLockStore.Waiters.POLL;
        break;
      case "queue":
        waiters = MemLockStore.Waiters.QUEUE;
        break;
      default:
        throw new IllegalArgumentException(
            "mem: option waiters='" + waiting + "' must be 'poll' (the default) or 'queue'");
    }
    String name = uri.body().isEmpty() ? "default" : uri.body();
    if (!name.matches("[A-Za-z0-9_.-]{1,64}")) {
      throw new IllegalArgumentException(
          "mem: space name '"
              + name
              + "' must be 1 to 64 letters, digits, '-', '_' or '.'; write mem: or mem:NAME");
    }
    return new MemLockStore(MemLockSpace.named(name), options.keyPrefix().orElse(""), waiters);
  }
}
