/**
 * The kit's own machinery, not part of its API: the child-JVM lock holder of the multi-process
 * rules.
 */
@NullMarked
package dev.locksmith.tck.internal;

import org.jspecify.annotations.NullMarked;
