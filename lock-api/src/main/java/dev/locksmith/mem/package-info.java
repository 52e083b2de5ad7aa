/**
 * The in-process {@code mem:} store: the reference implementation of the SPI, for examples, tests
 * and as the test kit's own control. Locks are shared by every client of one JVM that opens the
 * same {@code mem:NAME}; nothing crosses a process boundary.
 */
@NullMarked
package dev.locksmith.mem;

import org.jspecify.annotations.NullMarked;
