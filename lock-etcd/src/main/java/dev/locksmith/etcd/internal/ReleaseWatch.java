package dev.locksmith.etcd.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.locksmith.LockStoreException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A {@code /v3/watch} stream on one key that runs a callback whenever the key is deleted (released,
 * expired, or deleted by anyone): the push behind {@code WAKE_ON_RELEASE}.
 *
 * <p>One HTTP stream per watch, read line by line on the HTTP client's threads. {@link #open}
 * returns once etcd has confirmed the watch, so a deletion after it returns is never missed. A
 * stream that ends or fails runs the callback once more (the waiter then asks the store again, and
 * falls back to polling).
 */
public final class ReleaseWatch implements AutoCloseable {

  private final Lines lines;
  private final CompletableFuture<HttpResponse<Void>> exchange;

  private ReleaseWatch(Lines lines, CompletableFuture<HttpResponse<Void>> exchange) {
    this.lines = lines;
    this.exchange = exchange;
  }

  /**
   * Starts watching deletions of {@code key}.
   *
   * @throws LockStoreException if etcd did not confirm the watch within the gateway's timeout
   */
  public static ReleaseWatch open(EtcdGateway gateway, byte[] key, Runnable onDelete) {
    ObjectNode create = EtcdGateway.object();
    create.put("key", EtcdGateway.base64(key));
    create.putArray("filters").add("NOPUT");
    ObjectNode body = EtcdGateway.object();
    body.set("create_request", create);
    URI member = gateway.streamMember();
    // No request timeout: the response is a stream that lasts as long as the watch.
    HttpRequest request =
        gateway.requestBuilder(member, "/v3/watch", EtcdGateway.json(body)).build();
    Lines lines = new Lines(onDelete);
    CompletableFuture<HttpResponse<Void>> exchange =
        gateway.http().sendAsync(request, HttpResponse.BodyHandlers.fromLineSubscriber(lines));
    exchange.whenComplete(
        (r, e) -> {
          if (e != null || r.statusCode() != 200) {
            lines.created.completeExceptionally(
                e != null ? e : new IllegalStateException("HTTP " + r.statusCode()));
          }
        });
    ReleaseWatch watch = new ReleaseWatch(lines, exchange);
    try {
      lines.created.get(gateway.timeout().toMillis(), TimeUnit.MILLISECONDS);
      return watch;
    } catch (InterruptedException e) {
      watch.close();
      Thread.currentThread().interrupt();
      throw new LockStoreException("watch on etcd " + member.getAuthority() + " interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      watch.close();
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new LockStoreException(
          "watch on etcd " + member.getAuthority() + " was not confirmed: " + cause, cause);
    }
  }

  /** Stops the stream; the callback does not run for it any more. */
  @Override
  public void close() {
    lines.closed.set(true);
    Flow.Subscription s = lines.subscription;
    if (s != null) {
      s.cancel();
    }
    exchange.cancel(true);
  }

  private static final class Lines implements Flow.Subscriber<String> {
    final Runnable onDelete;
    final CompletableFuture<Void> created = new CompletableFuture<>();
    final AtomicBoolean closed = new AtomicBoolean();
    volatile Flow.@Nullable Subscription subscription;

    Lines(Runnable onDelete) {
      this.onDelete = onDelete;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(String line) {
      JsonNode m = EtcdGateway.parse(line);
      JsonNode result = m == null ? null : m.path("result");
      if (result == null || result.isMissingNode()) {
        return;
      }
      if (result.path("created").asBoolean(false)) {
        created.complete(null);
      }
      if (result.path("canceled").asBoolean(false)) {
        created.completeExceptionally(
            new IllegalStateException("watch canceled: " + result.path("cancel_reason").asText()));
        fire();
      }
      for (JsonNode event : result.path("events")) {
        if ("DELETE".equals(event.path("type").asText())) {
          fire();
        }
      }
    }

    @Override
    public void onError(Throwable t) {
      created.completeExceptionally(t);
      fire();
    }

    @Override
    public void onComplete() {
      created.completeExceptionally(new IllegalStateException("watch stream ended"));
      fire();
    }

    private void fire() {
      if (!closed.get()) {
        onDelete.run();
      }
    }
  }
}
