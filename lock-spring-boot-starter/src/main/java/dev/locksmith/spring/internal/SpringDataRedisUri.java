package dev.locksmith.spring.internal;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The Locksmith URI of the Redis server Spring Data Redis is configured for ({@code
 * locksmith.uri=spring-data-redis}), built from what {@link SpringDataRedisServer} reads from the
 * application's connection details, and the redaction of URIs for messages and health details.
 */
public final class SpringDataRedisUri {

  /** Why a server reached through one of Spring's SSL bundles is refused. */
  static final String NO_SSL_BUNDLES =
      "locksmith.uri=spring-data-redis does not take Spring's SSL bundles; give"
          + " locksmith.uri=rediss://host:port instead";

  private SpringDataRedisUri() {}

  /** {@code redis://[user:password@]host:port/database}. */
  public static String standalone(
      @Nullable String user, @Nullable String password, String host, int port, int database) {
    return "redis://" + auth(user, password) + host + ":" + port + "/" + database;
  }

  /** {@code redis-sentinel://[user:password@]host:port,…/database#master}. */
  public static String sentinel(
      @Nullable String user,
      @Nullable String password,
      List<String> nodes,
      int database,
      String master) {
    return "redis-sentinel://"
        + auth(user, password)
        + String.join(",", nodes)
        + "/"
        + database
        + "#"
        + master;
  }

  /** {@code redis-cluster://[user:password@]host:port,…}. */
  public static String cluster(
      @Nullable String user, @Nullable String password, List<String> nodes) {
    return "redis-cluster://" + auth(user, password) + String.join(",", nodes);
  }

  /** {@code uri} without user info, query or {@code ;options}, which may hold passwords. */
  public static String redact(String uri) {
    String s = uri;
    for (char end : new char[] {'?', ';'}) {
      int i = s.indexOf(end);
      if (i >= 0) {
        s = s.substring(0, i);
      }
    }
    int scheme = s.indexOf("://");
    int at = s.lastIndexOf('@');
    if (scheme >= 0 && at > scheme) {
      s = s.substring(0, scheme + 3) + s.substring(at + 1);
    }
    return s;
  }

  private static String auth(@Nullable String user, @Nullable String password) {
    if (password == null) {
      return "";
    }
    return (user != null ? encode(user) : "") + ":" + encode(password) + "@";
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
