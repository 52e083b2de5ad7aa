package dev.locksmith.tck.broken;

import dev.locksmith.mem.MemLockSpace;
import java.util.Locale;

/**
 * BROKEN ON PURPOSE: owner ids are compared case-insensitively and without trailing spaces, so
 * {@code Worker-A} and {@code worker-a } are one owner.
 *
 * <p>It mirrors an {@code owner} column in a case-insensitive, {@code PAD SPACE} collation (MySQL's
 * defaults), where {@code WHERE owner = ?} matches ids that differ in case or trailing blanks, and
 * code that normalises owners with {@code toLowerCase()}. The engine's generated owners are lower
 * case, but owners given with {@code withOwner} (host names, user names) are not.
 *
 * <p>The kit must fail it on "the store refuses every other owner" (12.2), whose foreign owners
 * include the holder's id in upper case and with a trailing space.
 */
public final class CaseInsensitiveOwnerLockStore extends ForwardingLockStore {

  /** A connection to {@code space}. */
  public CaseInsensitiveOwnerLockStore(MemLockSpace space) {
    super(space, "broken/case-insensitive-owner");
  }

  @Override
  protected String storedOwner(String owner) {
    return owner.toLowerCase(Locale.ROOT).stripTrailing(); // The bug: the collation's equality.
  }
}
