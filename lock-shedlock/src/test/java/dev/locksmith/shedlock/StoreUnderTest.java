package dev.locksmith.shedlock;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.tck.fixture.RunningStore;
import dev.locksmith.tck.fixture.StoreFixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One store started by its fixture for a whole test class (registered as a static extension), with
 * the clients the class's tests share; skipped with the fixture's reason where the store cannot run
 * here.
 */
final class StoreUnderTest implements BeforeAllCallback, AfterAllCallback {

  private final String fixtureName;
  private final List<LockClient> clients = new ArrayList<>();
  private @Nullable RunningStore running;
  private @Nullable LockClient providers;
  private @Nullable LockClient checker;

  StoreUnderTest(String fixtureName) {
    this.fixtureName = fixtureName;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    StoreFixture fixture = StoreFixture.named(fixtureName);
    Optional<String> unavailable = fixture.unavailableBecause();
    if (unavailable.isPresent()) {
      // Never a silent skip: the reason says how to install the store.
      throw new IllegalStateException(fixtureName + " cannot run here: " + unavailable.get());
    }
    running = fixture.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    try {
      for (LockClient c : clients) {
        c.close();
      }
    } finally {
      clients.clear();
      providers = null;
      checker = null;
      RunningStore r = running;
      running = null;
      if (r != null) {
        r.close();
      }
    }
  }

  String name() {
    return fixtureName;
  }

  RunningStore running() {
    RunningStore r = running;
    if (r == null) {
      throw new IllegalStateException(fixtureName + " is not running");
    }
    return r;
  }

  /** The client the class's providers lock with. */
  LockClient providerClient() {
    if (providers == null) {
      providers = open();
    }
    return providers;
  }

  /** Another client (another process): it checks in the store what the providers did. */
  LockClient checkerClient() {
    if (checker == null) {
      checker = open();
    }
    return checker;
  }

  /** A new client for {@code uri}, which reaches this store; closed with the store. */
  LockClient open(String uri) {
    LockClient c = LockClient.open(uri);
    clients.add(c);
    return c;
  }

  /** A new client, standing for a process of its own; closed with the store. */
  LockClient open() {
    LockClient c = running().open(LockOptions.defaults());
    clients.add(c);
    return c;
  }
}
