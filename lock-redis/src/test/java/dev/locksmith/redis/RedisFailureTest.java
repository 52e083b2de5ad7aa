package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.redis.internal.RedisFailure;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Which connect failures lost the server's answer, so that connecting again is worth it. */
class RedisFailureTest {

  @Test
  @DisplayName(
      "a handshake that failed because the connection closed under it lost the server's answer;"
          + " a refused connection or a server's refusal did not")
  void lostServerAnswer() {
    // As seen under load on a wrong password: the server's WRONGPASS never reached the caller.
    Throwable lost =
        new RedisConnectionException(
            "Unable to connect to 127.0.0.1:34817",
            new IllegalStateException("RedisHandshakeHandler not registered"));
    assertThat(RedisFailure.lostServerAnswer(lost)).isTrue();
    assertThat(
            RedisFailure.lostServerAnswer(
                new RedisConnectionException(
                    "Unable to connect", new java.net.ConnectException("Connection refused"))))
        .isFalse();
    assertThat(
            RedisFailure.lostServerAnswer(
                new RedisConnectionException(
                    "Unable to connect",
                    new io.lettuce.core.RedisCommandExecutionException("WRONGPASS invalid"))))
        .isFalse();
  }
}
