/**
 * The shared engine behind the API: waiting, renewal, lease bookkeeping, the thread-owned view,
 * multi-lock, provider discovery and input checks. Not an API: nothing here is stable.
 */
@NullMarked
package dev.locksmith.internal;

import org.jspecify.annotations.NullMarked;
