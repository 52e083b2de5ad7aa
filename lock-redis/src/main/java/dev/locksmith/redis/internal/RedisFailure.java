package dev.locksmith.redis.internal;

import dev.locksmith.spi.StoreFailure;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;

/**
 * Why Redis refused or failed a connection, in words, from the server's own error code.
 *
 * <p>Lettuce reports a refused handshake as "Unable to connect to host:port" and keeps the server's
 * answer (WRONGPASS, NOAUTH, NOPERM, a database out of range) three causes deep; a user needs that
 * answer in the first line.
 */
public final class RedisFailure {

  private RedisFailure() {}

  /**
   * The kind of a failed command: the server's error replies are refusals, Lettuce's timeouts and
   * broken connections are what they say, and an interrupt is an interrupt.
   */
  public static StoreFailure kind(Exception failure) {
    if (failure instanceof RedisCommandInterruptedException) {
      return StoreFailure.INTERRUPTED;
    }
    if (failure instanceof RedisCommandTimeoutException) {
      return StoreFailure.TIMED_OUT;
    }
    if (failure instanceof RedisCommandExecutionException) {
      return StoreFailure.REFUSED;
    }
    if (failure instanceof RedisConnectionException) {
      return StoreFailure.UNAVAILABLE;
    }
    StoreFailure kind = StoreFailure.of(failure);
    return kind == StoreFailure.UNCLASSIFIED && failure instanceof RedisException
        ? StoreFailure.UNAVAILABLE
        : kind;
  }

  /**
   * Whether Lettuce failed the handshake without the server's answer: the server refused and closed
   * the connection before Lettuce read the refusal ("RedisHandshakeHandler not registered"), so
   * connecting again gives the real reason.
   */
  public static boolean lostServerAnswer(Throwable failure) {
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      String message = t.getMessage();
      if (message != null && message.contains("HandshakeHandler not registered")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The reason behind {@code failure}: the server's refusal in words with its own message, or the
   * deepest cause's message (such as "Connection refused") when the server said nothing.
   *
   * @param database the database index the connection asked for, named when it is out of range
   */
  public static String reason(Throwable failure, int database) {
    Throwable deepest = failure;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      deepest = t;
      if (t instanceof RedisCommandExecutionException && t.getMessage() != null) {
        String said = t.getMessage();
        if (said.startsWith("WRONGPASS")) {
          return "wrong user name or password (" + said + ")";
        }
        if (said.startsWith("NOAUTH")) {
          return "the server requires a password and the URI gives none (" + said + ")";
        }
        if (said.startsWith("NOPERM")) {
          return "the user lacks a permission the lock store needs (" + said + ")";
        }
        if (said.contains("DB index is out of range") || said.contains("invalid DB index")) {
          return "database " + database + " is out of range on this server (" + said + ")";
        }
        if (said.contains("without any password configured")
            || said.contains("no password is set")) {
          return "the URI gives a password but the server has none set (" + said + ")";
        }
        return said;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    String message = deepest.getMessage();
    return message == null ? deepest.toString() : message;
  }
}
