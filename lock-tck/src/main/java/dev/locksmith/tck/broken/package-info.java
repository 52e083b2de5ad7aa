/**
 * Lock stores that are broken on purpose, each in one well-known way, so that store authors can see
 * what the kit catches: the kit's own tests run it against each and assert which rules fail. None
 * of them is fit for use.
 */
@NullMarked
package dev.locksmith.tck.broken;

import org.jspecify.annotations.NullMarked;
