package dev.locksmith.tck;

import dev.locksmith.Capability;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What a kit rule needs from the store under test; without it the rule is skipped, with a reason
 * that names what is missing. A capability the store does not declare is never silently untested:
 * another rule checks that the feature is refused ({@link Rule#R5_5}, {@link Rule#R6_3}, {@link
 * Rule#R8_5}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Requires {

  /** Capabilities the store must declare. */
  Capability[] value() default {};

  /** Hooks the contract class must provide. */
  KitHook[] hooks() default {};

  /**
   * Whether holds must end at a lease time, which SESSION_BOUND stores do not: their holds end with
   * the session.
   */
  boolean leaseExpiry() default false;
}
