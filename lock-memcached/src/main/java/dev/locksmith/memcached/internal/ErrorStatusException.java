package dev.locksmith.memcached.internal;

import net.spy.memcached.ops.OperationStatus;

/**
 * A memcached operation ended with a status the lock store does not expect: memcached refused it
 * (out of memory, value too large, …) or, rarely, spymemcached ended it without an answer
 * (cancelled, timed out). {@link ItemClient#classify} tells which.
 */
public final class ErrorStatusException extends Exception {

  private static final long serialVersionUID = 1L;

  private final transient OperationStatus status;

  ErrorStatusException(String operation, String itemKey, OperationStatus status) {
    super(
        operation
            + " of item '"
            + itemKey
            + "' answered "
            + status.getStatusCode()
            + " ("
            + status.getMessage()
            + ")");
    this.status = status;
  }

  /** The status the operation ended with. */
  public OperationStatus status() {
    return status;
  }
}
