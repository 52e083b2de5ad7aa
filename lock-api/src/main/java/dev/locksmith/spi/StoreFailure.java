package dev.locksmith.spi;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeoutException;

/**
 * What kind of failure a store call met, named in the message of the {@code LockStoreException} the
 * caller gets. A store classifies its driver's exceptions with {@link LockStore#classify}.
 */
public enum StoreFailure {
  /** The store could not be reached, or the connection to it broke. */
  UNAVAILABLE("the store is unavailable"),
  /** The store answered with a refusal: wrong credentials, no permission, a rejected command. */
  REFUSED("the store refused it"),
  /** No answer came within the store's command timeout. */
  TIMED_OUT("the store did not answer in time"),
  /** The calling thread was interrupted during the call. */
  INTERRUPTED("the call was interrupted"),
  /** Anything else; the cause says what. */
  UNCLASSIFIED("it failed");

  private final String description;

  StoreFailure(String description) {
    this.description = description;
  }

  /** How the failure reads in a message, such as {@code "the store is unavailable"}. */
  public String description() {
    return description;
  }

  /**
   * The kind of {@code failure} as far as the JDK's own exceptions tell (anywhere in its cause
   * chain): refused or broken connections are {@link #UNAVAILABLE}, timeouts {@link #TIMED_OUT},
   * interrupts (also a channel closed by an interrupt, {@code ClosedByInterruptException}) {@link
   * #INTERRUPTED}; anything else is {@link #UNCLASSIFIED}.
   */
  public static StoreFailure of(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      // A channel closed because its thread was interrupted (FileChannel, SocketChannel) is an
      // interrupt, not a lost connection, though it is a ClosedChannelException too.
      if (t instanceof InterruptedException
          || t instanceof java.nio.channels.ClosedByInterruptException) {
        return INTERRUPTED;
      }
      if (t instanceof SocketTimeoutException || t instanceof TimeoutException) {
        return TIMED_OUT;
      }
      if (t instanceof ConnectException
          || t instanceof UnknownHostException
          || t instanceof NoRouteToHostException
          || t instanceof PortUnreachableException
          || t instanceof ClosedChannelException) {
        return UNAVAILABLE;
      }
    }
    return UNCLASSIFIED;
  }
}
