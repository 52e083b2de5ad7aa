package dev.locksmith.spring.internal;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;

/** The starter runs on its own Spring Boot line and names the other starter on any other. */
class BootVersionCheckTest {

  @Test
  @DisplayName("the Spring Boot the tests run on is this starter's line")
  void ownLinePasses() {
    assertThatCode(() -> BootVersionCheck.verify(SpringBootVersion.getVersion()))
        .doesNotThrowAnyException();
    assertThatCode(() -> BootVersionCheck.verify(null)).doesNotThrowAnyException();
  }

  @Test
  @DisplayName("another line fails startup naming the running version and the starter to use")
  void otherLineFails() {
    String other = StarterLine.BOOT_MAJOR.equals("4") ? "3.5.7" : "4.0.7";
    assertThatThrownBy(() -> BootVersionCheck.verify(other))
        .isInstanceOf(StartupFailure.class)
        .hasMessageContaining(StarterLine.THIS_STARTER + " is built for Spring Boot")
        .hasMessageContaining("runs Spring Boot " + other)
        .hasMessageContaining("depend on dev.locksmith:lock-spring-boot");
    assertThatThrownBy(() -> BootVersionCheck.verify("2.7.18"))
        .hasMessageContaining("runs Spring Boot 2.7.18");
  }
}
