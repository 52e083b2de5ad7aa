/** Internals of the JDBC lock store: its SQL dialects and statements. Not an API. */
@NullMarked
package dev.locksmith.jdbc.internal;

import org.jspecify.annotations.NullMarked;
