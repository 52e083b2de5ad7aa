package dev.locksmith.etcd.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.locksmith.LockStoreException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * etcd's v3 JSON gateway ({@code POST /v3/kv/txn} …) over {@link HttpClient}, with the members of a
 * cluster tried in turn.
 *
 * <p>Calls go to one preferred member until it fails. A member that refuses the connection (the
 * request was never sent) is skipped for every call. A member that times out, drops the connection
 * mid-request or answers that it has no leader becomes the last choice for the next calls; the call
 * itself moves on to the next member only if it is {@link Retry#SAFE} to send twice, since a write
 * whose answer was lost may have been applied. Every failure is a {@link LockStoreException} whose
 * message names the member and the reason (connection refused, timed out after N ms, HTTP status
 * and etcd's own error message); an interrupt ends the call with the interrupt flag kept.
 */
public final class EtcdGateway implements AutoCloseable {

  /** Whether a call may be sent to another member after its outcome became unknown. */
  public enum Retry {
    /** Reads, lease grants and revokes: sending twice does no harm. */
    SAFE,
    /** Writes: sent once; if the answer is lost, the caller learns that the outcome is unknown. */
    ONCE
  }

  /** How to reach the members: plain HTTP, or HTTPS with the JVM's default trust store. */
  public enum Scheme {
    /** {@code http://}, for {@code etcd://} URIs. */
    HTTP("http://"),
    /** {@code https://}, for {@code etcds://} URIs. */
    HTTPS("https://");

    private final String prefix;

    Scheme(String prefix) {
      this.prefix = prefix;
    }
  }

  private static final String AUTHENTICATE = "/v3/auth/authenticate";
  private static final Logger log = LoggerFactory.getLogger(EtcdGateway.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Encoder B64 = Base64.getEncoder();

  private final List<URI> members;
  private final HttpClient http;
  private final Duration timeout;
  private final AtomicInteger preferred = new AtomicInteger();
  private final @Nullable Credentials credentials;
  private volatile @Nullable String token;
  // Background calls not answered yet: lease revokes of released or busy holds.
  private final Set<CompletableFuture<?>> background = ConcurrentHashMap.newKeySet();

  /**
   * An etcd user and password, for clusters with authentication on.
   *
   * @param user the etcd user
   * @param password its password
   */
  public record Credentials(String user, String password) {
    /** Hides the password. */
    @Override
    public String toString() {
      return "Credentials{user=" + user + ", password=***}";
    }
  }

  /**
   * A gateway to {@code members} ({@code host:port}, IPv6 in brackets).
   *
   * @param scheme whether to speak HTTP or HTTPS
   * @param timeout how long one request to one member may take
   * @param credentials the user to authenticate as, or null for a cluster without authentication
   */
  public EtcdGateway(
      List<String> members, Scheme scheme, Duration timeout, @Nullable Credentials credentials) {
    if (members.isEmpty()) {
      throw new IllegalArgumentException("no etcd members");
    }
    List<URI> uris = new ArrayList<>();
    for (String m : members) {
      uris.add(URI.create(scheme.prefix + m));
    }
    this.members = List.copyOf(uris);
    this.timeout = timeout;
    this.credentials = credentials;
    // HTTP/1.1: the gateway's streams (watch) are plain chunked responses; h2c upgrade buys
    // nothing.
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /** A new JSON object for a request body. */
  public static ObjectNode object() {
    return JSON.createObjectNode();
  }

  /** {@code bytes} as etcd's JSON wants them: base64. */
  public static String base64(byte[] bytes) {
    return B64.encodeToString(bytes);
  }

  /** The member calls go to first, as {@code host:port}. */
  public String preferredMember() {
    return members.get(Math.floorMod(preferred.get(), members.size())).getAuthority();
  }

  /** The request timeout of one call to one member. */
  public Duration timeout() {
    return timeout;
  }

  /** The underlying client, for streams ({@code /v3/watch}). */
  HttpClient http() {
    return http;
  }

  /** The member a stream should go to. */
  URI streamMember() {
    return members.get(Math.floorMod(preferred.get(), members.size()));
  }

  /**
   * Gets an auth token for the credentials, if there are any; later calls carry it, and a call
   * whose token etcd no longer knows (it expired) gets a new one and is sent again.
   *
   * @throws LockStoreException naming the user if etcd refuses the credentials
   */
  public void authenticate() {
    Credentials c = credentials;
    if (c == null) {
      return;
    }
    ObjectNode body = object();
    body.put("name", c.user()).put("password", c.password());
    try {
      token = send(AUTHENTICATE, body, Retry.SAFE).path("token").asText(null);
    } catch (EtcdException e) {
      throw new LockStoreException(
          "etcd refused the credentials of user '" + c.user() + "': " + e.etcdMessage(), e);
    }
  }

  /**
   * Posts {@code body} to {@code path} ({@code /v3/kv/range}) and returns etcd's answer.
   *
   * @throws LockStoreException if no member answered with success; the message says why
   */
  public JsonNode call(String path, ObjectNode body, Retry retry) {
    try {
      return send(path, body, retry);
    } catch (EtcdException e) {
      // etcd checks the token before it applies anything, so sending again is safe for writes too.
      if (credentials == null || !e.etcdMessage().contains("invalid auth token")) {
        throw e;
      }
      authenticate();
      return send(path, body, retry);
    }
  }

  private JsonNode send(String path, ObjectNode body, Retry retry) {
    byte[] bytes = json(body);
    int n = members.size();
    int first = Math.floorMod(preferred.get(), n);
    List<String> failures = new ArrayList<>();
    // A non-timeout I/O error on a SAFE call may be a pooled connection the member closed (it was
    // restarted): worth one more try on the same member.
    boolean staleRetryLeft = retry == Retry.SAFE;
    for (int i = 0; i < n; i++) {
      int index = (first + i) % n;
      URI member = members.get(index);
      HttpResponse<byte[]> response;
      try {
        try {
          response =
              http.send(request(member, path, bytes), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
          if (!staleRetryLeft
              || e instanceof ConnectException
              || e instanceof HttpTimeoutException) {
            throw e;
          }
          staleRetryLeft = false;
          response =
              http.send(request(member, path, bytes), HttpResponse.BodyHandlers.ofByteArray());
        }
      } catch (HttpConnectTimeoutException e) {
        failures.add(member.getAuthority() + ": connect timed out after " + millis() + " ms");
        avoid(index);
        continue; // never sent
      } catch (ConnectException e) {
        failures.add(member.getAuthority() + ": connection refused");
        avoid(index);
        continue; // never sent
      } catch (HttpTimeoutException e) {
        failures.add(member.getAuthority() + ": timed out after " + millis() + " ms");
        avoid(index);
        if (retry == Retry.SAFE) {
          continue;
        }
        throw unknownOutcome(path, failures, e);
      } catch (IOException e) {
        failures.add(member.getAuthority() + ": " + e);
        avoid(index);
        if (retry == Retry.SAFE) {
          continue;
        }
        throw unknownOutcome(path, failures, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new LockStoreException(
            path + " on etcd " + member.getAuthority() + " was interrupted", e);
      }
      JsonNode answer = parse(response.body());
      if (response.statusCode() == 200 && answer != null && !answer.has("error")) {
        return answer;
      }
      String why = errorText(response.statusCode(), answer, response.body());
      failures.add(member.getAuthority() + ": " + why);
      if (response.statusCode() == 503 || why.contains("no leader")) {
        // This member cannot serve now (no leader, shutting down): others may.
        avoid(index);
        if (retry == Retry.SAFE) {
          continue;
        }
      }
      if (why.contains("user name is empty")) {
        failures.add(
            "the cluster has authentication on: give a user in the URI, etcd://user:password@host");
      }
      throw new EtcdException(
          "etcd " + path + " failed: " + String.join("; ", failures),
          response.statusCode(),
          answer == null ? -1 : answer.path("code").asInt(-1),
          answer == null ? why : answer.path("message").asText(why));
    }
    throw new LockStoreException(
        "etcd " + path + " failed on every member: " + String.join("; ", failures));
  }

  /**
   * Posts {@code body} to {@code path} without waiting: for clean-up that may fail harmlessly (a
   * lease revoke; an unrevoked lease ends at its TTL). Works on an interrupted thread. {@link
   * #close} lets the calls still on their way finish first.
   */
  public void callInBackground(String path, ObjectNode body) {
    URI member = streamMember();
    CompletableFuture<?> call =
        http.sendAsync(request(member, path, json(body)), HttpResponse.BodyHandlers.discarding())
            .whenComplete(
                (r, e) -> {
                  if (e != null) {
                    log.debug(
                        "Background {} on etcd {} failed: {}", path, member.getAuthority(), e);
                  }
                });
    background.add(call);
    call.whenComplete((r, e) -> background.remove(call));
  }

  private HttpRequest request(URI member, String path, byte[] body) {
    return requestBuilder(member, path, body).timeout(timeout).build();
  }

  /** A request without a timeout yet (streams have none), with the auth token if there is one. */
  HttpRequest.Builder requestBuilder(URI member, String path, byte[] body) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(member.resolve(path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    String t = token;
    // Logging in goes without the old token: etcd refuses a request whose token expired.
    return t == null || path.equals(AUTHENTICATE) ? b : b.header("Authorization", t);
  }

  /** Makes {@code index} the last choice, if it is still the first. */
  private void avoid(int index) {
    int n = members.size();
    preferred.getAndUpdate(p -> Math.floorMod(p, n) == index ? (index + 1) % n : p);
  }

  private LockStoreException unknownOutcome(String path, List<String> failures, Exception e) {
    return new LockStoreException(
        "etcd "
            + path
            + " failed, and may or may not have been applied: "
            + String.join("; ", failures),
        e);
  }

  private long millis() {
    return timeout.toMillis();
  }

  static byte[] json(ObjectNode body) {
    try {
      return JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  static @Nullable JsonNode parse(byte[] body) {
    try {
      return body.length == 0 ? null : JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  static @Nullable JsonNode parse(String line) {
    return parse(line.getBytes(StandardCharsets.UTF_8));
  }

  private static String errorText(int status, @Nullable JsonNode answer, byte[] body) {
    String message =
        answer != null && answer.hasNonNull("message")
            ? answer.get("message").asText()
            : answer != null && answer.hasNonNull("error")
                ? answer.get("error").asText()
                : new String(body, 0, Math.min(body.length, 200), StandardCharsets.UTF_8).strip();
    return "HTTP " + status + (message.isEmpty() ? "" : " " + message);
  }

  /** A JSON array of one object, for a transaction's compare and operation lists. */
  public static ArrayNode listOf(ObjectNode... items) {
    ArrayNode a = JSON.createArrayNode();
    for (ObjectNode o : items) {
      a.add(o);
    }
    return a;
  }

  /**
   * Waits, at most one request timeout, for the background calls still on their way (the lease
   * revokes of the last releases: cut short, each would leave its lease on the server until its
   * TTL), then drops the connections. Java 17's {@link HttpClient} has no close (its threads end
   * once it is unreachable, and its daemon threads do not keep the JVM alive for the calls still
   * pending); on Java 21 and later this calls its {@code shutdownNow()}, found reflectively.
   */
  @Override
  public void close() {
    CompletableFuture<?>[] pending = background.toArray(new CompletableFuture<?>[0]);
    try {
      CompletableFuture.allOf(pending).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.debug("Background calls to etcd had not all ended when the store closed", e);
    }
    try {
      http.getClass().getMethod("shutdownNow").invoke(http);
    } catch (NoSuchMethodException java17) {
      // Nothing to do: the client is collected with this gateway.
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.debug("Closing the HTTP client failed", e);
    }
  }
}
