/**
 * Lock stores that are broken on purpose, each in one realistic way, so that store authors can see
 * what the kit catches: the kit's own tests run the whole kit against each and assert exactly which
 * rules fail (and that every other rule passes). None of them is fit for use.
 *
 * <p>They come on three bases, each a stand-in for a real kind of store:
 *
 * <ul>
 *   <li>{@link dev.locksmith.tck.broken.KeyValueLockStore} over {@link
 *       dev.locksmith.tck.broken.KeyValueSpace}, a toy Redis: the classic broken recipes (plain
 *       {@code DEL}, {@code SETNX} then {@code EXPIRE}, {@code GETSET} timestamps, {@code INCR}, no
 *       expiry).
 *   <li>{@link dev.locksmith.tck.broken.ForwardingLockStore} in front of the reference {@code mem:}
 *       store: defects of the client side of a store (units, rounding, owner and key encodings,
 *       ignored replies, catch-alls, caches, hints, capabilities).
 *   <li>{@link dev.locksmith.tck.broken.TableLockStore} over {@link
 *       dev.locksmith.tck.broken.LockTable}, a toy JDBC store that passes the whole kit on its own:
 *       one wrong statement each (expiry, versions, hold counts, readers, waiting writers).
 * </ul>
 *
 * <p>Each class's Javadoc starts with {@code BROKEN ON PURPOSE}, says what real code it mirrors,
 * and names the rules that must catch it, or, for the defects the kit misses, the rule that would.
 */
@NullMarked
package dev.locksmith.tck.broken;

import org.jspecify.annotations.NullMarked;
