package dev.locksmith.spi;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A lock store URI split into its scheme, its body and its query options, in the loose grammar that
 * covers every store: {@code scheme:body[?key=value[&key=value]…]}.
 *
 * <p>The body is what follows the scheme's colon, up to the query: {@code //host:6379/0} for {@code
 * redis://host:6379/0}, {@code h2:mem:locks} for {@code jdbc:h2:mem:locks}. Option values are
 * percent-decoded. {@link #toString()} hides passwords so the URI can go into messages and logs.
 */
public final class LockUri {

  private static final Pattern SCHEME = Pattern.compile("[a-zA-Z][a-zA-Z0-9+.-]*");
  private static final Pattern PASSWORD_IN_AUTHORITY = Pattern.compile("(//[^/@:?#]*:)[^/@?#]*@");
  private static final Pattern PASSWORD_IN_QUERY =
      Pattern.compile("(?i)((?:password|passwd|pwd|secret)=)[^&;]*");

  private final String raw;
  private final String scheme;
  private final String body;
  private final Map<String, String> options;

  private LockUri(String raw, String scheme, String body, Map<String, String> options) {
    this.raw = raw;
    this.scheme = scheme;
    this.body = body;
    this.options = Collections.unmodifiableMap(options);
  }

  /**
   * Parses {@code uri}.
   *
   * @throws NullPointerException if {@code uri} is null
   * @throws IllegalArgumentException if it has no scheme, or an option is malformed or repeated
   */
  public static LockUri parse(String uri) {
    Objects.requireNonNull(uri, "uri must not be null");
    String trimmed = uri.strip();
    int colon = trimmed.indexOf(':');
    if (trimmed.isEmpty() || colon <= 0 || !SCHEME.matcher(trimmed.substring(0, colon)).matches()) {
      throw new IllegalArgumentException(
          "lock URI '"
              + redact(trimmed)
              + "' has no scheme; expected scheme:…, such as mem:, redis://host:6379 or"
              + " jdbc:h2:mem:locks");
    }
    for (int i = 0; i < trimmed.length(); i++) {
      if (Character.isISOControl(trimmed.charAt(i))) {
        throw new IllegalArgumentException(
            "lock URI '" + redact(trimmed) + "' has a control character at index " + i);
      }
    }
    String scheme = trimmed.substring(0, colon).toLowerCase(Locale.ROOT);
    String rest = trimmed.substring(colon + 1);
    int q = rest.indexOf('?');
    String body = q < 0 ? rest : rest.substring(0, q);
    Map<String, String> options = new LinkedHashMap<>();
    if (q >= 0) {
      for (String pair : rest.substring(q + 1).split("&", -1)) {
        if (pair.isEmpty()) {
          continue;
        }
        int eq = pair.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException(
              "lock URI '"
                  + redact(trimmed)
                  + "' has option '"
                  + redact(pair)
                  + "' without key=value");
        }
        String key = decode(pair.substring(0, eq));
        String value = decode(pair.substring(eq + 1));
        if (options.putIfAbsent(key, value) != null) {
          throw new IllegalArgumentException(
              "lock URI '" + redact(trimmed) + "' sets option '" + key + "' twice");
        }
      }
    }
    return new LockUri(trimmed, scheme, body, options);
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bad percent-encoding in lock URI option '" + s + "'", e);
    }
  }

  /** The URI as given (with passwords; do not log it, log {@link #toString()}). */
  public String raw() {
    return raw;
  }

  /** The scheme, lower case. */
  public String scheme() {
    return scheme;
  }

  /** What follows the scheme's colon, up to the query. */
  public String body() {
    return body;
  }

  /** All query options, in order. */
  public Map<String, String> options() {
    return options;
  }

  /**
   * A copy without the options named in {@code remove}; the engine hands providers a URI without
   * the common options it consumed.
   */
  public LockUri withoutOptions(java.util.Set<String> remove) {
    Map<String, String> kept = new LinkedHashMap<>(options);
    kept.keySet().removeAll(remove);
    StringBuilder sb = new StringBuilder(scheme).append(':').append(body);
    char sep = '?';
    for (Map.Entry<String, String> e : kept.entrySet()) {
      sb.append(sep)
          .append(java.net.URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8))
          .append('=')
          .append(java.net.URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
      sep = '&';
    }
    return new LockUri(sb.toString(), scheme, body, kept);
  }

  /** The value of option {@code key}, if the URI sets it. */
  public java.util.Optional<String> option(String key) {
    return java.util.Optional.ofNullable(options.get(key));
  }

  /**
   * Option {@code key} as a duration ({@code 500ms}, {@code 10s}, {@code PT10S}), or {@code
   * defaultValue} when the URI does not set it.
   *
   * @throws IllegalArgumentException if it is not a duration or lies outside {@code [min, max]};
   *     the message names the option and the URI
   */
  public java.time.Duration durationOption(
      String key, java.time.Duration defaultValue, java.time.Duration min, java.time.Duration max) {
    String text = options.get(key);
    if (text == null) {
      return defaultValue;
    }
    java.time.Duration d =
        dev.locksmith.internal.InputRules.parseDuration("option '" + key + "'", text);
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw new IllegalArgumentException(
          "option '"
              + key
              + "' in lock URI '"
              + this
              + "' must be between "
              + dev.locksmith.internal.InputRules.human(min)
              + " and "
              + dev.locksmith.internal.InputRules.human(max)
              + ", was "
              + text);
    }
    return d;
  }

  /**
   * Option {@code key} as {@code true} or {@code false}, or {@code defaultValue} when not set.
   *
   * @throws IllegalArgumentException if it is anything else
   */
  public boolean booleanOption(String key, boolean defaultValue) {
    String text = options.get(key);
    return text == null
        ? defaultValue
        : dev.locksmith.internal.InputRules.parseBoolean("option '" + key + "'", text);
  }

  /**
   * Option {@code key} as a whole number in {@code [min, max]}, or {@code defaultValue} when not
   * set.
   *
   * @throws IllegalArgumentException if it is not a whole number or out of range
   */
  public int intOption(String key, int defaultValue, int min, int max) {
    String text = options.get(key);
    if (text == null) {
      return defaultValue;
    }
    int n;
    try {
      n = Integer.parseInt(text.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "option '" + key + "' in lock URI '" + this + "' must be a whole number, was " + text, e);
    }
    if (n < min || n > max) {
      throw new IllegalArgumentException(
          "option '"
              + key
              + "' in lock URI '"
              + this
              + "' must be between "
              + min
              + " and "
              + max
              + ", was "
              + n);
    }
    return n;
  }

  /** The options left for the store once the engine took the common ones. */
  public Map<String, String> storeOptions() {
    return options;
  }

  /** The URI with passwords replaced by {@code ***}. */
  @Override
  public String toString() {
    return redact(raw);
  }

  /** {@code uri} with passwords (in the authority and in password-like options) hidden. */
  public static String redact(String uri) {
    String s = PASSWORD_IN_AUTHORITY.matcher(uri).replaceAll("$1***@");
    return PASSWORD_IN_QUERY.matcher(s).replaceAll("$1***");
  }
}
