/**
 * The Locksmith test kit: the contract every store passes ({@code dev.locksmith.tck}), the
 * deliberately broken stores it must fail ({@code dev.locksmith.tck.broken}) and the store fixtures
 * ({@code dev.locksmith.tck.fixture}, found with {@link java.util.ServiceLoader}).
 *
 * <p>Open: JUnit runs the kit's rules, default methods of its interfaces, by reflection.
 */
open module dev.locksmith.tck {
  requires transitive dev.locksmith.api;
  requires transitive org.junit.jupiter.api;
  requires transitive org.junit.jupiter.params;
  requires org.junit.platform.commons;
  requires transitive org.assertj.core;
  requires awaitility;
  requires static org.jspecify;

  exports dev.locksmith.tck;
  exports dev.locksmith.tck.broken;
  exports dev.locksmith.tck.fixture;
  exports dev.locksmith.tck.internal to
      dev.locksmith.cli;

  uses dev.locksmith.tck.fixture.StoreFixture;

  provides dev.locksmith.tck.fixture.StoreFixture with
      dev.locksmith.tck.fixture.MemFixture;
}
