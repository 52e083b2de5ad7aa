/**
 * Internals of the JDBC lock store: its SQL dialects, statements and rows, and its database access.
 * Not an API.
 */
@NullMarked
package dev.locksmith.jdbc.internal;

import org.jspecify.annotations.NullMarked;
