package dev.locksmith.tck;

/**
 * What every group of rules reaches its store through: {@link LockStoreContract} implements it and
 * hands each rule a fresh {@link Kit}.
 */
public interface KitTest {

  /** The kit of the running test: its clients, names, timings and hooks. */
  Kit kit();
}
