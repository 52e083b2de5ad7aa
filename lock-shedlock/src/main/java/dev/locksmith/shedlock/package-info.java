/**
 * ShedLock on Locksmith: {@link dev.locksmith.shedlock.LocksmithLockProvider} is a ShedLock {@code
 * LockProvider} (and {@code ExtensibleLockProvider}) that takes its locks in any Locksmith store.
 */
@NullMarked
package dev.locksmith.shedlock;

import org.jspecify.annotations.NullMarked;
