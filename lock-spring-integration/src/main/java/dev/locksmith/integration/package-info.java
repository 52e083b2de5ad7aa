/**
 * Spring Integration support: {@link dev.locksmith.integration.LocksmithLockRegistry}, a {@code
 * LockRegistry} backed by any Locksmith store.
 */
@NullMarked
package dev.locksmith.integration;

import org.jspecify.annotations.NullMarked;
