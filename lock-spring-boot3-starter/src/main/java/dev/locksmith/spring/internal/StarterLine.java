package dev.locksmith.spring.internal;

/**
 * The Spring Boot line this starter is built for (Boot 3.5), and the starter for the other line:
 * {@link BootVersionCheck} fails startup with them when an application runs the wrong one.
 */
public final class StarterLine {

  /** The major version of Spring Boot this starter is built for. */
  public static final String BOOT_MAJOR = "3";

  /** This starter's coordinates. */
  public static final String THIS_STARTER = "dev.locksmith:lock-spring-boot3-starter";

  /** The starter for the other Spring Boot line. */
  public static final String OTHER_STARTER =
      "dev.locksmith:lock-spring-boot-starter, Locksmith's starter for Spring Boot 4";

  private StarterLine() {}
}
