package dev.locksmith.spring;

/**
 * What the starter does when a lease is lost while the code it protects still runs (the {@code
 * locksmith.on-lost} property).
 *
 * <p>Either way the loss is logged at WARN with the lock's name and the method, and the method's
 * later release throws {@link dev.locksmith.LeaseLostException}: a critical section that outlived
 * its lease never ends silently.
 */
public enum LostLeaseAction {
  /** Log it and let the method run on. */
  LOG,
  /**
   * Log it and interrupt the thread that runs the method, so blocking calls in it stop with an
   * {@link InterruptedException}. Only the method's own thread is interrupted, and only while the
   * method runs.
   */
  INTERRUPT
}
