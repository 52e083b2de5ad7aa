package dev.locksmith.jdbc;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The settings of a {@link JdbcLockStore}: where the lock table lives, whether to create it, the
 * statement timeout, how often expired rows are swept and the prefix put before every lock name.
 *
 * <p>Table and schema names are SQL identifiers that go into statements as text (identifiers cannot
 * be bound), so they are checked here against a strict pattern: a letter or underscore, then
 * letters, digits or underscores. They come from configuration, never from lock names. The read
 * holds of read-write locks live in a second table called {@code <table>_readers}, and the fencing
 * tokens come from {@code <table>_seq} (a sequence; a one-row table on MySQL). Instances are
 * immutable; build them with {@link #builder()}.
 */
public final class JdbcLockStoreOptions {

  /** The lock table's name when none is set. */
  public static final String DEFAULT_TABLE = "locksmith_locks";

  /** The statement timeout when none is set. */
  public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(5);

  /** How often a store sweeps expired rows when nothing else is set. */
  public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(30);

  /** The shortest sweep interval. */
  public static final Duration MIN_SWEEP_INTERVAL = Duration.ofMillis(100);

  /** The longest sweep interval. */
  public static final Duration MAX_SWEEP_INTERVAL = Duration.ofHours(1);

  /**
   * The most characters of a key prefix: the prefix, the separator U+001F and a name of 256 UTF-8
   * bytes (up to 256 characters) fit the 320 characters of the {@code name} column.
   */
  public static final int MAX_KEY_PREFIX_LENGTH = 63;

  // 55 leaves room for the "_readers" suffix within the 63-character limit of PostgreSQL.
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,54}");
  private static final JdbcLockStoreOptions DEFAULTS = builder().build();

  private final @Nullable String schema;
  private final String table;
  private final boolean createTable;
  private final Duration queryTimeout;
  private final Duration sweepInterval;
  private final String keyPrefix;

  private JdbcLockStoreOptions(Builder b) {
    this.schema = b.schema;
    this.table = b.table;
    this.createTable = b.createTable;
    this.queryTimeout = b.queryTimeout;
    this.sweepInterval = b.sweepInterval;
    this.keyPrefix = b.keyPrefix;
  }

  /** The defaults: table {@code locksmith_locks} in the connection's schema, created on demand. */
  public static JdbcLockStoreOptions defaults() {
    return DEFAULTS;
  }

  /** A builder that starts from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** The schema of the lock tables, if set; else the connection's current schema. */
  public Optional<String> schema() {
    return Optional.ofNullable(schema);
  }

  /** The lock table's name. */
  public String table() {
    return table;
  }

  /** The read-hold table's name: the lock table's name plus {@code _readers}. */
  public String readersTable() {
    return table + "_readers";
  }

  /**
   * The source of the fencing tokens: the lock table's name plus {@code _seq}. A sequence on H2,
   * PostgreSQL and MariaDB; a table of one counter row on MySQL, which has no sequences.
   */
  public String sequence() {
    return table + "_seq";
  }

  /**
   * Whether the store creates the tables (and the token sequence) if they do not exist when it
   * opens.
   */
  public boolean createTable() {
    return createTable;
  }

  /** The timeout of every statement the store runs. */
  public Duration queryTimeout() {
    return queryTimeout;
  }

  /**
   * How often the store deletes the rows of holds that ended without a release (a crashed holder's
   * rows, once their lease ran out on the database clock) and of read-write locks left idle.
   */
  public Duration sweepInterval() {
    return sweepInterval;
  }

  /**
   * The prefix of every lock name in the table; empty by default. A non-empty prefix is joined to
   * the name with the separator U+001F, which neither may contain: the row's name is the prefix,
   * U+001F and the name, so two different (prefix, name) pairs never share a row.
   */
  public String keyPrefix() {
    return keyPrefix;
  }

  @Override
  public String toString() {
    return "JdbcLockStoreOptions{table="
        + (schema != null ? schema + "." : "")
        + table
        + ", createTable="
        + createTable
        + ", queryTimeout="
        + queryTimeout
        + ", sweepInterval="
        + sweepInterval
        + ", keyPrefix='"
        + keyPrefix
        + "'}";
  }

  /** Builds {@link JdbcLockStoreOptions}; every setter checks its argument at once. */
  public static final class Builder {
    private @Nullable String schema;
    private String table = DEFAULT_TABLE;
    private boolean createTable = true;
    private Duration queryTimeout = DEFAULT_QUERY_TIMEOUT;
    private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;
    private String keyPrefix = "";

    private Builder() {}

    /**
     * The schema of the lock tables.
     *
     * @throws IllegalArgumentException if not a plain SQL identifier of at most 55 characters
     */
    public Builder schema(String schema) {
      this.schema = identifier("schema", schema);
      return this;
    }

    /**
     * The lock table's name.
     *
     * @throws IllegalArgumentException if not a plain SQL identifier of at most 55 characters
     */
    public Builder table(String table) {
      this.table = identifier("table", table);
      return this;
    }

    /** Whether to create the tables if they do not exist (default true). */
    public Builder createTable(boolean createTable) {
      this.createTable = createTable;
      return this;
    }

    /**
     * The timeout of every statement; JDBC counts it in whole seconds, so it is rounded up.
     *
     * @throws IllegalArgumentException if not positive or longer than an hour
     */
    public Builder queryTimeout(Duration queryTimeout) {
      Objects.requireNonNull(queryTimeout, "queryTimeout must not be null");
      if (queryTimeout.isNegative()
          || queryTimeout.isZero()
          || queryTimeout.compareTo(Duration.ofHours(1)) > 0) {
        throw new IllegalArgumentException(
            "queryTimeout must be positive and at most an hour, was " + queryTimeout);
      }
      this.queryTimeout = queryTimeout;
      return this;
    }

    /**
     * How often the store deletes rows of holds that ended without a release and of idle read-write
     * locks (default 30 s). Each store sweeps once per interval on a shared background thread: a
     * few bounded DELETEs of rows expired on the database clock. Crashed holders' rows stay until
     * then, though they block nobody once their lease ran out.
     *
     * @throws IllegalArgumentException if shorter than 100 ms or longer than an hour
     */
    public Builder sweepInterval(Duration sweepInterval) {
      Objects.requireNonNull(sweepInterval, "sweepInterval must not be null");
      if (sweepInterval.compareTo(MIN_SWEEP_INTERVAL) < 0
          || sweepInterval.compareTo(MAX_SWEEP_INTERVAL) > 0) {
        throw new IllegalArgumentException(
            "sweepInterval must be from 100ms to 1h, was " + sweepInterval);
      }
      this.sweepInterval = sweepInterval;
      return this;
    }

    /**
     * The prefix of every lock name in the table (at most 63 characters, no control characters).
     * Stores opened from a URI take it from {@code LockOptions.keyPrefix()}.
     *
     * @throws IllegalArgumentException if too long or has control characters
     */
    public Builder keyPrefix(String keyPrefix) {
      Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
      if (keyPrefix.length() > MAX_KEY_PREFIX_LENGTH
          || keyPrefix.chars().anyMatch(Character::isISOControl)) {
        throw new IllegalArgumentException(
            "keyPrefix '"
                + keyPrefix.replaceAll("\\p{Cntrl}", "?")
                + "' must be at most 63 characters without control characters (the JDBC store"
                + " joins it to the name with U+001F in a column of 320 characters)");
      }
      this.keyPrefix = keyPrefix;
      return this;
    }

    /** The options. */
    public JdbcLockStoreOptions build() {
      return new JdbcLockStoreOptions(this);
    }

    private static String identifier(String what, String value) {
      Objects.requireNonNull(value, () -> what + " must not be null");
      if (!IDENTIFIER.matcher(value).matches()) {
        throw new IllegalArgumentException(
            what
                + " '"
                + value
                + "' is not a plain SQL identifier: use 1 to 55 letters, digits or '_',"
                + " starting with a letter or '_'");
      }
      return value;
    }
  }
}
