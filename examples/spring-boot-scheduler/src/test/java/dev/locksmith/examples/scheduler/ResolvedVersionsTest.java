package dev.locksmith.examples.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.netty.util.Version;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * What a Spring Boot 3.5.7 application that imports lock-bom resolves for Locksmith's Redis store:
 * Boot's own Netty and Lettuce, not the ones Locksmith's build tests with. The README's Spring Boot
 * section states these versions; {@link TwoInstancesTest} runs lock-redis on them.
 */
class ResolvedVersionsTest {

  @Test
  @DisplayName("Spring Boot's managed Netty 4.1 and Lettuce 6.6 win over lock-redis's own")
  void bootsNettyAndLettuce() {
    assertThat(Version.identify().get("netty-common").artifactVersion()).isEqualTo("4.1.128.Final");
    assertThat(RedisClient.class.getPackage().getImplementationVersion())
        .startsWith("6.6.0.RELEASE"); // followed by the commit: "6.6.0.RELEASE/643bd47"
  }
}
