/**
 * The service provider interface: what a store module implements so that the shared engine in
 * {@code lock-api} can run locks on it.
 *
 * <p>A store module supplies a {@link dev.locksmith.spi.LockProvider} (registered in {@code
 * META-INF/services/dev.locksmith.spi.LockProvider}) that opens a {@link
 * dev.locksmith.spi.LockStore}: the few atomic operations only the store can do. Waiting, renewal,
 * the {@link java.util.concurrent.locks.Lock} view, multi-lock, input checks and lease bookkeeping
 * are the engine's and are never written again in a store. The test kit ({@code lock-tck}) checks
 * that a store keeps the contract.
 */
@NullMarked
package dev.locksmith.spi;

import org.jspecify.annotations.NullMarked;
