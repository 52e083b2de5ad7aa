package dev.locksmith.tck.broken;

import dev.locksmith.Capability;
import dev.locksmith.LockStoreException;
import dev.locksmith.spi.LockKey;
import dev.locksmith.spi.LockMode;
import dev.locksmith.spi.LockState;
import dev.locksmith.spi.LockStore;
import java.util.Objects;
import java.util.Set;

/**
 * What the broken stores share: a connection to a {@link KeyValueSpace}, exclusive locks only, no
 * capabilities beyond the core contract, and a closed connection that fails every call.
 *
 * <p>Subclasses are deliberately wrong in one way each; do not copy them.
 */
public abstract class KeyValueLockStore implements LockStore {

  /** The shared "server". */
  protected final KeyValueSpace space;

  private final String description;
  private volatile boolean closed;

  /** A connection to {@code space}, described as {@code description} in messages. */
  protected KeyValueLockStore(KeyValueSpace space, String description) {
    this.space = Objects.requireNonNull(space, "space must not be null");
    this.description = Objects.requireNonNull(description, "description must not be null");
  }

  @Override
  public String keyPrefix() {
    return "";
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public Set<Capability> promises() {
    return Set.of();
  }

  @Override
  public LockState read(LockKey key) {
    String owner = space.get(keyOf(key));
    return owner == null
        ? LockState.FREE
        : LockState.heldBy(owner, 1, space.ttl(keyOf(key)).orElse(null));
  }

  /** The key of {@code key} in the space; fails for modes the broken stores do not have. */
  protected String keyOf(LockKey key) {
    checkOpen();
    if (key.mode() != LockMode.EXCLUSIVE) {
      throw new LockStoreException(description + " has no read-write locks");
    }
    return keyFor(key.name());
  }

  /**
   * The key of the exclusive lock called {@code lockName} in the space, for an outside actor that
   * deletes it behind the clients' backs.
   */
  public static String keyFor(String lockName) {
    return "lock:" + lockName;
  }

  /** Throws once the connection is closed, as a networked store would. */
  protected void checkOpen() {
    if (closed) {
      throw new LockStoreException(description + " connection is closed");
    }
  }

  /** Whether {@link #close()} was called. */
  protected boolean isClosed() {
    return closed;
  }

  @Override
  public void close() {
    closed = true;
  }
}
