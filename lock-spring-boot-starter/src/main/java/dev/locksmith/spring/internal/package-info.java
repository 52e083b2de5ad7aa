/**
 * The starter's implementation: the {@code @Locked} advice, the locked call shared with {@link
 * dev.locksmith.spring.LockTemplate}, Micrometer meters and the health indicator. Not an API: it
 * may change in any release.
 */
@NullMarked
package dev.locksmith.spring.internal;

import org.jspecify.annotations.NullMarked;
