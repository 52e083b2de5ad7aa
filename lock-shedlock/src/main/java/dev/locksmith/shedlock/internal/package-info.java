/**
 * The provider's moving parts: a held ShedLock lock and its deadlines, the timers that end it, the
 * store's shortest lease, and the per-thread stack of held locks. Not an API: nothing here is
 * stable.
 */
@NullMarked
package dev.locksmith.shedlock.internal;

import org.jspecify.annotations.NullMarked;
