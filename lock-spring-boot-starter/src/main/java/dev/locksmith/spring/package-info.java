/**
 * Locksmith for Spring Boot: an auto-configured {@link dev.locksmith.LockClient} from {@code
 * locksmith.*} properties, {@link dev.locksmith.spring.Locked @Locked} for methods and scheduled
 * jobs, {@link dev.locksmith.spring.LockTemplate}, Micrometer meters and the {@code locksmith}
 * health indicator.
 */
@NullMarked
package dev.locksmith.spring;

import org.jspecify.annotations.NullMarked;
