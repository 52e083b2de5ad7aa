/** Internals of the Spring Integration support; not an API. */
@NullMarked
package dev.locksmith.integration.internal;

import org.jspecify.annotations.NullMarked;
