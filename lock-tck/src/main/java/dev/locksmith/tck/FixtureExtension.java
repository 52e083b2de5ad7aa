package dev.locksmith.tck;

import dev.locksmith.tck.fixture.RunningStore;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/**
 * Starts the store of a {@link FixtureContract} class once, before its first test, hands it to
 * every test instance, and stops it when the class is done.
 */
final class FixtureExtension implements TestInstancePostProcessor {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(FixtureExtension.class);

  @Override
  public void postProcessTestInstance(Object instance, ExtensionContext context) {
    FixtureContract contract = (FixtureContract) instance;
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    Started started =
        classContext
            .getStore(NAMESPACE)
            .getOrComputeIfAbsent(
                contract.getClass(), k -> new Started(contract.fixture().start()), Started.class);
    contract.runOn(started.store);
  }

  /** The running store, closed by JUnit when the class's context ends. */
  private static final class Started implements ExtensionContext.Store.CloseableResource {
    final RunningStore store;

    Started(RunningStore store) {
      this.store = store;
    }

    @Override
    public void close() {
      store.close();
    }
  }
}
