package dev.locksmith.spring.internal;

import org.jspecify.annotations.Nullable;

/**
 * Fails startup when the application's Spring Boot is not the line this starter is built for
 * ({@link StarterLine}): on the other line the starter would start, but without its health
 * indicator and {@code locksmith.uri=spring-data-redis}, whose Boot types moved in Boot 4.
 */
public final class BootVersionCheck {

  private BootVersionCheck() {}

  /**
   * Passes if {@code bootVersion} is of this starter's line, or unknown ({@code null}: Boot's jar
   * was repackaged without its manifest).
   *
   * @throws StartupFailure naming the running version and the starter to use instead
   */
  public static void verify(@Nullable String bootVersion) {
    if (bootVersion == null || bootVersion.startsWith(StarterLine.BOOT_MAJOR + ".")) {
      return;
    }
    throw new StartupFailure(
        StarterLine.THIS_STARTER
            + " is built for Spring Boot "
            + StarterLine.BOOT_MAJOR
            + ".x, but this application runs Spring Boot "
            + bootVersion
            + ": depend on "
            + StarterLine.OTHER_STARTER
            + ", instead");
  }
}
