package dev.locksmith.examples.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.netty.util.Version;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What a Spring Boot application that imports lock-bom resolves for Locksmith's Redis store: Boot's
 * own Netty and Lettuce, not the ones Locksmith's build tests with. The build states them in the
 * system properties {@code expected.netty} and {@code expected.lettuce} (Boot 4.0.7: Netty
 * 4.2.15.Final and Lettuce 6.8.2.RELEASE; Boot 3.5.7, in spring-boot3-scheduler: Netty
 * 4.1.128.Final and Lettuce 6.6.0.RELEASE); {@link TwoInstancesTest} runs lock-redis on them.
 */
class ResolvedVersionsTest {

  @Test
  @DisplayName("Spring Boot's managed Netty and Lettuce win over lock-redis's own")
  void bootsNettyAndLettuce() {
    assertThat(Version.identify().get("netty-common").artifactVersion())
        .isEqualTo(System.getProperty("expected.netty"));
    assertThat(RedisClient.class.getPackage().getImplementationVersion())
        .startsWith(
            System.getProperty("expected.lettuce")); // then the commit: "6.6.0.RELEASE/643bd47"
  }
}
