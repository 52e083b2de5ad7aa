package dev.locksmith.cli.internal;

import dev.locksmith.spi.LockUri;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLSocketFactory;

/**
 * What a store's server says about itself, for the report: its version and the settings the store's
 * promises depend on, asked of the running server (so it stays true whoever started it and however:
 * a fixture, or an operator for a store given by {@code --uri}).
 *
 * <p>The command finds stores through {@code ServiceLoader} and names none elsewhere; this class is
 * the exception, since only a store's own protocol can ask its server. A scheme it does not know, a
 * server that does not answer within a second, or one that refuses the question gives no facts,
 * never an error: the report then shows the URI and the process only.
 */
public final class ServerFacts {

  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  /**
   * What was found out.
   *
   * @param summary the version and settings, such as {@code "Redis 7.0.15, appendonly yes"}
   * @param note what the settings mean for the comparison's rows (empty if nothing)
   */
  public record Facts(String summary, String note) {
    /** No facts: the scheme is not known here, or the server did not say. */
    public static final Facts NONE = new Facts("", "");
  }

  private ServerFacts() {}

  /**
   * The facts the server at {@code uri} gives; {@link Facts#NONE} if it gives none.
   *
   * @throws NullPointerException if {@code uri} is null
   */
  public static Facts of(String uri) {
    Objects.requireNonNull(uri, "uri must not be null");
    try {
      LockUri parsed = LockUri.parse(uri);
      return switch (parsed.scheme()) {
        case "redis", "rediss" -> redis(parsed, parsed.scheme().equals("rediss"));
        case "memcached" -> memcached(parsed);
        case "etcd", "etcds" -> etcd(parsed, parsed.scheme().equals("etcds"));
        case "zookeeper" -> zooKeeper(parsed);
        case "jdbc" -> database(parsed);
        default -> Facts.NONE;
      };
    } catch (IOException | RuntimeException e) {
      return Facts.NONE;
    }
  }

  /** {@code INFO} over RESP: the version, append-only persistence and the eviction policy. */
  private static Facts redis(LockUri uri, boolean tls) throws IOException {
    LockUri.Authority a = uri.authority(6379);
    if (a.servers().size() != 1 || uri.option("sentinelMasterId").isPresent()) {
      return Facts.NONE;
    }
    LockUri.Server server = a.servers().get(0);
    try (Socket s = tls ? connectTls(server) : connect(server)) {
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      if (a.password() != null) {
        List<String> auth = new ArrayList<>(List.of("AUTH"));
        if (a.user() != null) {
          auth.add(a.user());
        }
        auth.add(a.password());
        resp(out, auth);
        if (in.read() != '+') {
          return Facts.NONE;
        }
        readLine(in);
      }
      resp(out, List.of("INFO"));
      if (in.read() != '$') {
        return Facts.NONE;
      }
      int length = Integer.parseInt(readLine(in).trim());
      if (length < 0 || length > 1_000_000) {
        return Facts.NONE;
      }
      String info = new String(in.readNBytes(length), StandardCharsets.UTF_8);
      Map<String, String> fields = new LinkedHashMap<>();
      for (String line : info.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && !line.startsWith("#")) {
          fields.put(line.substring(0, colon), line.substring(colon + 1));
        }
      }
      String version = fields.getOrDefault("redis_version", "?");
      boolean aof = "1".equals(fields.get("aof_enabled"));
      String policy = fields.getOrDefault("maxmemory_policy", "?");
      String summary =
          "Redis "
              + version
              + ", appendonly "
              + (aof ? "yes" : "no")
              + ", maxmemory-policy "
              + policy;
      String note =
          aof
              ? "appendonly yes is why DURABLE_FENCING shows: a redis-server with its default"
                  + " settings (appendonly no) does not declare it, and its tokens may go back"
                  + " after a restart"
              : "appendonly no: no DURABLE_FENCING (a restart may forget the token counter)";
      if (!policy.equals("noeviction") && !policy.equals("?")) {
        note += "; maxmemory-policy " + policy + " may evict a held lock";
      }
      return new Facts(summary, note);
    }
  }

  /** {@code version} and {@code stats settings} over memcached's text protocol. */
  private static Facts memcached(LockUri uri) throws IOException {
    LockUri.Server server = uri.authority(11211).servers().get(0);
    try (Socket s = connect(server)) {
      OutputStream out = s.getOutputStream();
      out.write("version\r\nstats settings\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      String version = readLine(in).trim();
      if (!version.startsWith("VERSION ")) {
        return Facts.NONE;
      }
      Map<String, String> stats = new LinkedHashMap<>();
      for (String line = readLine(in).trim(); line.startsWith("STAT "); ) {
        String[] parts = line.split(" ", 3);
        if (parts.length == 3) {
          stats.put(parts[1], parts[2]);
        }
        line = readLine(in).trim();
      }
      StringBuilder summary =
          new StringBuilder("memcached ").append(version.substring("VERSION ".length()));
      String maxBytes = stats.get("maxbytes");
      if (maxBytes != null && maxBytes.matches("\\d+")) {
        summary.append(", ").append(Long.parseLong(maxBytes) >> 20).append(" MB for items");
      }
      String evictions = stats.get("evictions");
      if (evictions != null) {
        summary.append(", evictions ").append(evictions);
      }
      if (uri.authority(11211).servers().size() > 1) {
        summary.append(" (the first of ").append(uri.authority(11211).servers().size());
        summary.append(" servers)");
      }
      return new Facts(summary.toString(), "");
    }
  }

  private static final Pattern ETCD_VERSION =
      Pattern.compile("\"etcdserver\"\\s*:\\s*\"([^\"]+)\"");

  /** {@code GET /version} of the first member. */
  private static Facts etcd(LockUri uri, boolean tls) throws IOException {
    LockUri.Server server = uri.authority(2379).servers().get(0);
    HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create((tls ? "https://" : "http://") + server + "/version"))
            .timeout(TIMEOUT)
            .build();
    try {
      String body = http.send(request, HttpResponse.BodyHandlers.ofString()).body();
      Matcher m = ETCD_VERSION.matcher(body);
      return m.find() ? new Facts("etcd " + m.group(1), "") : Facts.NONE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Facts.NONE;
    }
  }

  private static final Pattern ZOOKEEPER_VERSION =
      Pattern.compile("Zookeeper version: ([0-9][^-,\\s]*)");

  /** The four-letter word {@code srvr} (allowed by default): version and mode. */
  private static Facts zooKeeper(LockUri uri) throws IOException {
    LockUri.Server server = uri.authority(2181).servers().get(0);
    try (Socket s = connect(server)) {
      s.getOutputStream().write("srvr".getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      String answer = new String(s.getInputStream().readNBytes(4096), StandardCharsets.UTF_8);
      Matcher m = ZOOKEEPER_VERSION.matcher(answer);
      if (!m.find()) {
        return Facts.NONE;
      }
      Matcher mode = Pattern.compile("Mode: (\\S+)").matcher(answer);
      return new Facts("ZooKeeper " + m.group(1) + (mode.find() ? ", " + mode.group(1) : ""), "");
    }
  }

  /**
   * The database's product and version, from the driver's metadata. The JDBC URL is the lock URI
   * without its query (the store's options are there); credentials given as {@code user} and {@code
   * password} options are passed on, no other option (H2 refuses settings it does not know).
   */
  private static Facts database(LockUri uri) {
    String url = uri.scheme() + ":" + uri.body();
    Properties credentials = new Properties();
    for (String key : List.of("user", "password")) {
      String value = uri.options().get(key);
      if (value != null) {
        credentials.setProperty(key, value);
      }
    }
    DriverManager.setLoginTimeout((int) TIMEOUT.toSeconds());
    try (Connection c = DriverManager.getConnection(url, credentials)) {
      DatabaseMetaData meta = c.getMetaData();
      return new Facts(meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion(), "");
    } catch (SQLException e) {
      return Facts.NONE;
    }
  }

  /** A plain connection to {@code server}, reads timing out after {@link #TIMEOUT}. */
  private static Socket connect(LockUri.Server server) throws IOException {
    Socket s = new Socket();
    try {
      s.connect(new InetSocketAddress(server.host(), server.port()), (int) TIMEOUT.toMillis());
      s.setSoTimeout((int) TIMEOUT.toMillis());
      return s;
    } catch (IOException | RuntimeException e) {
      s.close();
      throw e;
    }
  }

  /** A TLS connection to {@code server} (rediss), trusting what this JVM trusts. */
  private static Socket connectTls(LockUri.Server server) throws IOException {
    Socket plain = connect(server);
    try {
      Socket secure =
          ((SSLSocketFactory) SSLSocketFactory.getDefault())
              .createSocket(plain, server.host(), server.port(), true);
      secure.setSoTimeout((int) TIMEOUT.toMillis());
      return secure;
    } catch (IOException | RuntimeException e) {
      plain.close();
      throw e;
    }
  }

  private static void resp(OutputStream out, List<String> command) throws IOException {
    StringBuilder sb = new StringBuilder("*").append(command.size()).append("\r\n");
    for (String part : command) {
      byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
      sb.append('$').append(bytes.length).append("\r\n").append(part).append("\r\n");
    }
    out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** A line up to {@code \r\n} (or the end), without it. */
  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
      if (b != '\r') {
        line.write(b);
      }
      if (line.size() > 65_536) {
        throw new IOException("line too long");
      }
    }
    return line.toString(StandardCharsets.UTF_8);
  }
}
