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
    String query = q < 0 ? "" : rest.substring(q + 1);
    int hash = query.indexOf('#');
    if (hash >= 0 && body.startsWith("//")) {
      // scheme://host/path?query#fragment: the fragment belongs to the authority's side.
      body = body + query.substring(hash);
      query = query.substring(0, hash);
    }
    Map<String, String> options = new LinkedHashMap<>();
    if (q >= 0) {
      for (String pair : query.split("&", -1)) {
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

  /** The option naming how long one store call waits for an answer: {@code operationTimeout}. */
  public static final String OPERATION_TIMEOUT = "operationTimeout";

  /**
   * {@link #authority(int)} for a store whose URI names servers only: no path (but {@code /}) and
   * no fragment.
   *
   * @param example how the store's URI looks, for the message, such as {@code
   *     memcached://host:11211[,host2:11211]}
   * @throws IllegalArgumentException as {@link #authority(int)} does, or naming the path or
   *     fragment and showing {@code example}
   */
  public Authority serversOnly(int defaultPort, String example) {
    java.util.Objects.requireNonNull(example, "example must not be null");
    Authority authority = authority(defaultPort);
    if (!authority.path().isEmpty() && !authority.path().equals("/")
        || authority.fragment() != null) {
      throw new IllegalArgumentException(
          "lock URI '"
              + this
              + "' has a path or fragment; "
              + scheme
              + " names servers only, write "
              + example);
    }
    return authority;
  }

  /**
   * The {@value #OPERATION_TIMEOUT} option: how long one store call waits for an answer before it
   * fails, from 10 ms to 1 minute.
   *
   * @throws IllegalArgumentException if the option is malformed or out of range
   */
  public java.time.Duration operationTimeout(java.time.Duration defaultValue) {
    java.util.Objects.requireNonNull(defaultValue, "defaultValue must not be null");
    return durationOption(
        OPERATION_TIMEOUT,
        defaultValue,
        java.time.Duration.ofMillis(10),
        java.time.Duration.ofMinutes(1));
  }

  /**
   * The server part of a URI of the form {@code scheme://[user[:password]@]host[:port][,host[:
   * port]…][/path][#fragment]}, parsed and checked without any network traffic, so a malformed host
   * list fails at once with a message that names the bad part.
   *
   * <p>Hosts are names ({@code redis-1.example}), IPv4 addresses, or IPv6 addresses in brackets
   * ({@code [::1]:6379}); a port is a number from 1 to 65535, and {@code defaultPort} where none is
   * given. User and password are percent-decoded.
   *
   * @throws IllegalArgumentException if the body does not start with {@code //}, names no server,
   *     or has an empty, malformed or repeated host or a bad port
   */
  public Authority authority(int defaultPort) {
    if (defaultPort < 1 || defaultPort > 65535) {
      throw new IllegalArgumentException("defaultPort must be from 1 to 65535, was " + defaultPort);
    }
    if (!body.startsWith("//")) {
      throw new IllegalArgumentException(
          "lock URI '" + this + "' must start with " + scheme + "://, followed by host[:port]");
    }
    String rest = body.substring(2);
    String fragment = null;
    int hash = rest.indexOf('#');
    if (hash >= 0) {
      fragment = rest.substring(hash + 1);
      rest = rest.substring(0, hash);
    }
    int slash = rest.indexOf('/');
    String authority = slash < 0 ? rest : rest.substring(0, slash);
    String path = slash < 0 ? "" : rest.substring(slash);
    String user = null;
    String password = null;
    int at = authority.lastIndexOf('@');
    if (at >= 0) {
      String userInfo = authority.substring(0, at);
      authority = authority.substring(at + 1);
      int colon = userInfo.indexOf(':');
      String u = colon < 0 ? userInfo : userInfo.substring(0, colon);
      user = u.isEmpty() ? null : decode(u);
      password = colon < 0 ? null : decode(userInfo.substring(colon + 1));
    }
    if (authority.isEmpty()) {
      throw new IllegalArgumentException(
          "lock URI '" + this + "' names no server; write " + scheme + "://host:" + defaultPort);
    }
    java.util.List<Server> servers = new java.util.ArrayList<>();
    for (String part : authority.split(",", -1)) {
      Server server = server(part.strip(), defaultPort);
      if (servers.contains(server)) {
        throw new IllegalArgumentException(
            "lock URI '" + this + "' names server " + server + " twice");
      }
      servers.add(server);
    }
    return new Authority(user, password, java.util.List.copyOf(servers), path, fragment);
  }

  private static final Pattern HOST_NAME =
      Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]+(?:%[A-Za-z0-9_.-]+)?");

  private Server server(String part, int defaultPort) {
    if (part.isEmpty()) {
      throw new IllegalArgumentException(
          "lock URI '" + this + "' has an empty host in its server list");
    }
    String host;
    String port;
    if (part.startsWith("[")) {
      int close = part.indexOf(']');
      if (close < 0) {
        throw new IllegalArgumentException(
            "lock URI '" + this + "' has an unclosed IPv6 bracket in '" + part + "'");
      }
      host = part.substring(1, close);
      String after = part.substring(close + 1);
      if (!after.isEmpty() && !after.startsWith(":")) {
        throw new IllegalArgumentException(
            "lock URI '" + this + "' has '" + after + "' after the IPv6 address in '" + part + "'");
      }
      port = after.isEmpty() ? null : after.substring(1);
      if (!IPV6.matcher(host).matches() || host.indexOf(':') < 0) {
        throw new IllegalArgumentException(
            "lock URI '" + this + "' has '" + host + "' in brackets, which is no IPv6 address");
      }
    } else {
      int colon = part.indexOf(':');
      if (colon >= 0 && part.indexOf(':', colon + 1) >= 0) {
        throw new IllegalArgumentException(
            "lock URI '"
                + this
                + "' has host '"
                + part
                + "'; put IPv6 addresses in brackets, as in [::1]:"
                + defaultPort);
      }
      host = colon < 0 ? part : part.substring(0, colon);
      port = colon < 0 ? null : part.substring(colon + 1);
      if (!HOST_NAME.matcher(host).matches()) {
        throw new IllegalArgumentException(
            "lock URI '" + this + "' has host '" + host + "', which is not a host name or address");
      }
    }
    int p = defaultPort;
    if (port != null) {
      p = port.matches("\\d{1,5}") ? Integer.parseInt(port) : -1;
      if (p < 1 || p > 65535) {
        throw new IllegalArgumentException(
            "lock URI '"
                + this
                + "' has port '"
                + port
                + "' in '"
                + part
                + "'; a port is a number from 1 to 65535");
      }
    }
    return new Server(host, p);
  }

  /**
   * One server of a URI's host list.
   *
   * @param host a host name, an IPv4 address, or an IPv6 address without brackets
   * @param port from 1 to 65535
   */
  public record Server(String host, int port) {
    /** {@code host:port}, with an IPv6 address in brackets. */
    @Override
    public String toString() {
      return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
  }

  /**
   * The parts of a URI's authority, path and fragment; see {@link #authority(int)}.
   *
   * @param user the user, percent-decoded, if the URI names one
   * @param password the password, percent-decoded, if the URI gives one
   * @param servers one or more servers, in the URI's order, none twice
   * @param path what follows the host list up to the query or fragment ({@code ""} if nothing)
   * @param fragment what follows {@code #}, if present
   */
  public record Authority(
      @org.jspecify.annotations.Nullable String user,
      @org.jspecify.annotations.Nullable String password,
      java.util.List<Server> servers,
      String path,
      @org.jspecify.annotations.Nullable String fragment) {

    /** The servers as {@code host:port,host:port}. */
    public String serverList() {
      StringBuilder sb = new StringBuilder();
      for (Server s : servers) {
        if (sb.length() > 0) {
          sb.append(',');
        }
        sb.append(s);
      }
      return sb.toString();
    }

    /** Hides the password. */
    @Override
    public String toString() {
      return "Authority{user="
          + user
          + ", password="
          + (password == null ? null : "***")
          + ", servers="
          + serverList()
          + ", path="
          + path
          + "}";
    }
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
