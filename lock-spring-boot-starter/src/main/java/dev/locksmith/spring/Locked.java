package dev.locksmith.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method of a Spring bean only while holding the distributed lock {@link
 * #name()}, taken from the application's {@link dev.locksmith.LockClient}.
 *
 * <pre>{@code
 * @Scheduled(cron = "0 0/15 * * * *")
 * @Locked(name = "report", holdAtLeast = "14m")        // once per period across every instance
 * public void report() { … }
 *
 * @Locked(name = "order:#{#id}", waitFor = "5s", onBusy = OnBusy.FAIL)
 * public Receipt ship(long id) { … LockContext.currentLease().fencingToken() … }
 * }</pre>
 *
 * <p>The lock is taken before the method runs and released when it returns or throws; while it runs
 * the lease is renewed (no {@code lockAtMostFor} to guess) and is reachable through {@link
 * LockContext#currentLease()} or a parameter of type {@link dev.locksmith.Lease} (the caller passes
 * {@code null}; the lease is filled in). It works on {@code @Scheduled} methods and on direct calls
 * through the bean, like any Spring AOP advice: not on calls from inside the same object, not on
 * private, final or static methods (which fail startup instead of being silently unlocked).
 *
 * <p>Everything is checked at startup: a blank name, a name template that does not parse or refers
 * to a parameter the method does not have, an unparsable or negative duration, {@code onBusy =
 * SKIP} on a method returning a primitive, {@code onBusy = WAIT} with a {@code waitFor}, and
 * methods returning a future or a publisher (the lock would end before their work does) all fail
 * startup with an {@link IllegalArgumentException} naming the method and the attribute.
 *
 * <p>At run time: a store failure while acquiring throws {@link dev.locksmith.LockStoreException}
 * and the method does not run (a {@code @Scheduled} method's run is skipped instead: the scheduler
 * would only log the exception, every tick; a store outage is logged once at WARN when it starts
 * and once at INFO when it ends, each failed call at DEBUG); an interrupt while waiting throws
 * {@link dev.locksmith.LockException} with the interrupt flag kept; a lease lost while the method
 * runs is logged at WARN (and interrupts the method with {@code locksmith.on-lost=INTERRUPT}), and
 * the release afterwards throws {@link dev.locksmith.LeaseLostException}; a store failure at
 * release is logged and the lock frees at its expiry.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {

  /**
   * The lock's name: text with optional SpEL templates over the method's arguments, such as {@code
   * "order:#{#id}"} ({@code #p0}/{@code #a0} work too; {@code ${…}} property placeholders are
   * resolved first). It must not evaluate to an empty name.
   */
  String name();

  /**
   * How long to wait for the lock before it counts as busy: {@code "0"} (the default: do not wait),
   * {@code "500ms"}, {@code "5s"}, {@code "PT5S"}, or a placeholder. (It is not called {@code
   * wait}: Java keeps that name for {@link Object#wait()}.)
   */
  String waitFor() default "0";

  /**
   * The lease time of this lock (renewed while the method runs); empty for {@code
   * locksmith.lease-time}.
   */
  String leaseTime() default "";

  /** What to do when the lock is still taken after {@link #waitFor()}. */
  OnBusy onBusy() default OnBusy.SKIP;

  /**
   * Keep the lock taken until at least this long after it was acquired, even if the method ended
   * sooner (ShedLock's {@code lockAtLeastFor}): with a period's worth, a job scheduled on several
   * instances whose clocks differ runs once per period. The store keeps the hold until then, also
   * if this instance dies; see {@link dev.locksmith.Lease#releaseHeldAtLeast}. Empty for none.
   */
  String holdAtLeast() default "";
}
