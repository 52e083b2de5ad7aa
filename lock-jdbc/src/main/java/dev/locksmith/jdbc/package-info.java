/**
 * The JDBC lock store: a lock table with one row per held lock and fencing tokens from a sequence,
 * on H2, PostgreSQL and MySQL/MariaDB, for teams whose only shared infrastructure is their
 * database. Open it with {@code LockClient.open("jdbc:postgresql://host/db?user=app")} or wrap an
 * existing {@code DataSource} in a {@link dev.locksmith.jdbc.JdbcLockStore}.
 */
@NullMarked
package dev.locksmith.jdbc;

import org.jspecify.annotations.NullMarked;
