/**
 * The technology-compatibility kit: {@link dev.locksmith.tck.LockStoreContract} (the JUnit 5
 * contract every store must pass), {@link dev.locksmith.tck.StoreFaults} (the fault hook), and
 * {@link dev.locksmith.tck.LockHistory} with {@link dev.locksmith.tck.HistoryChecker} (record
 * holds, then prove no two overlapped and tokens only rose).
 */
@NullMarked
package dev.locksmith.tck;

import org.jspecify.annotations.NullMarked;
