package dev.locksmith.internal;

import dev.locksmith.LockOptions;
import dev.locksmith.spi.LockProvider;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.LockUri;
import java.util.Set;

/** A provider that fails to load: discovery must log it and go on. */
public final class BrokenTestProvider implements LockProvider {

  /** Fails, as a provider with a missing dependency would. */
  public BrokenTestProvider() {
    throw new IllegalStateException("this provider is broken on purpose");
  }

  @Override
  public Set<String> schemes() {
    return Set.of("broken");
  }

  @Override
  public LockStore open(LockUri uri, LockOptions options) {
    throw new AssertionError("unreachable");
  }
}
