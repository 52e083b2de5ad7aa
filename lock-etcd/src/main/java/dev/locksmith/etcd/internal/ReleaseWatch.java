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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@code /v3/watch} stream on one key that runs a callback whenever the key is deleted (released,
 * expired, or deleted by anyone): the push behind {@code WAKE_ON_RELEASE}.
 *
 * <p>One HTTP stream per watch, read line by line on the HTTP client's threads. {@link #open}
 * returns once etcd has confirmed the watch, so a deletion after it returns is never missed.
 *
 * <p>A stream that breaks (its connection dropped or cut, etcd restarted or cancelled the watch) is
 * opened again in the background, with growing pauses until a new stream is confirmed or the watch
 * is closed. The callback runs when the first new stream is confirmed or fails, and whenever a
 * later one is confirmed: the waiter asks the store again, so a waiter whose own link to etcd is
 * dead learns it at once, without waiting out its back-off (its attempt fails), and a waiter whose
 * link only blipped misses no release made while no stream was open and keeps being woken by
 * releases. The first new stream is opened a moment after the break rather than at once, and the
 * waiter woken only then, so that the HTTP client has dropped the pooled connections the break
 * closed: a waiter's lock request sent over one of them fails with an unknown outcome.
 */
public final class ReleaseWatch implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ReleaseWatch.class);

  /** The first pause before a new stream after a break, doubled after each failed one. */
  private static final long FIRST_REOPEN_MILLIS = 50;

  /** The longest pause between attempts to open a new stream. */
  private static final long MAX_REOPEN_MILLIS = 2_000;

  /**
   * Which attempt at a new stream this is: the first after a break wakes the waiter, come what may.
   */
  private enum Reopening {
    FIRST,
    RETRY
  }

  private final EtcdGateway gateway;
  private final byte[] key;
  private final Runnable onDelete;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile @Nullable Stream current;

  private ReleaseWatch(EtcdGateway gateway, byte[] key, Runnable onDelete) {
    this.gateway = gateway;
    this.key = key;
    this.onDelete = onDelete;
  }

  /**
   * Starts watching deletions of {@code key}.
   *
   * @throws LockStoreException if etcd did not confirm the watch within the gateway's timeout
   */
  public static ReleaseWatch open(EtcdGateway gateway, byte[] key, Runnable onDelete) {
    ReleaseWatch watch = new ReleaseWatch(gateway, key, onDelete);
    Stream stream = watch.start();
    watch.current = stream;
    try {
      stream.lines.created.get(gateway.timeout().toMillis(), TimeUnit.MILLISECONDS);
      return watch;
    } catch (InterruptedException e) {
      watch.close();
      Thread.currentThread().interrupt();
      throw new LockStoreException(
          "watch on etcd " + stream.member.getAuthority() + " interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      watch.close();
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new LockStoreException(
          "watch on etcd " + stream.member.getAuthority() + " was not confirmed: " + cause, cause);
    }
  }

  /** Stops the stream; the callback does not run for it any more, and no new stream opens. */
  @Override
  public void close() {
    closed.set(true);
    Stream s = current;
    if (s != null) {
      s.close();
    }
  }

  /** Sends the request of a new stream; does not wait for etcd to confirm it. */
  private Stream start() {
    ObjectNode create = EtcdGateway.object();
    create.put("key", EtcdGateway.base64(key));
    create.putArray("filters").add("NOPUT");
    ObjectNode body = EtcdGateway.object();
    body.set("create_request", create);
    URI member = gateway.streamMember();
    // No request timeout: the response is a stream that lasts as long as the watch.
    HttpRequest request =
        gateway.requestBuilder(member, "/v3/watch", EtcdGateway.json(body)).build();
    Lines lines = new Lines();
    CompletableFuture<HttpResponse<Void>> exchange =
        gateway.http().sendAsync(request, HttpResponse.BodyHandlers.fromLineSubscriber(lines));
    Stream stream = new Stream(member, lines, exchange);
    lines.stream = stream;
    exchange.whenComplete(
        (r, e) -> {
          if (e != null || r.statusCode() != 200) {
            lines.ended(e != null ? e : new IllegalStateException("HTTP " + r.statusCode()));
          }
        });
    return stream;
  }

  /** {@code stream}, once confirmed, broke: open a new stream, then wake the waiter. */
  private void broken(Stream stream, Throwable why) {
    if (closed.get() || stream != current) {
      return;
    }
    log.debug("Watch on etcd {} broke ({}); opening a new one", stream.member.getAuthority(), why);
    reopen(FIRST_REOPEN_MILLIS, Reopening.FIRST);
  }

  /**
   * Opens a new stream after {@code pauseMillis}, without blocking any thread on it, and runs the
   * callback once it is confirmed, or, for the {@link Reopening#FIRST} attempt, once it failed.
   */
  private void reopen(long pauseMillis, Reopening attempt) {
    CompletableFuture.delayedExecutor(pauseMillis, TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              if (closed.get()) {
                return;
              }
              Stream next;
              try {
                next = start();
              } catch (RuntimeException e) {
                if (attempt == Reopening.FIRST) {
                  onDelete.run();
                }
                reopen(Math.min(pauseMillis * 2, MAX_REOPEN_MILLIS), Reopening.RETRY);
                return;
              }
              current = next;
              if (closed.get()) {
                next.close();
                return;
              }
              next.lines
                  .created
                  .orTimeout(gateway.timeout().toMillis(), TimeUnit.MILLISECONDS)
                  .whenComplete(
                      (confirmed, failure) -> {
                        if (closed.get()) {
                          next.close();
                        } else if (failure == null) {
                          // A release while no stream was open went unseen: ask again.
                          onDelete.run();
                        } else {
                          next.close();
                          if (attempt == Reopening.FIRST) {
                            // Maybe the waiter's own link is dead: its next attempt tells.
                            onDelete.run();
                          }
                          reopen(Math.min(pauseMillis * 2, MAX_REOPEN_MILLIS), Reopening.RETRY);
                        }
                      });
            });
  }

  /** One HTTP stream of the watch. */
  private static final class Stream {
    final URI member;
    final Lines lines;
    final CompletableFuture<HttpResponse<Void>> exchange;

    Stream(URI member, Lines lines, CompletableFuture<HttpResponse<Void>> exchange) {
      this.member = member;
      this.lines = lines;
      this.exchange = exchange;
    }

    void close() {
      lines.stopped.set(true);
      Flow.Subscription s = lines.subscription;
      if (s != null) {
        s.cancel();
      }
      exchange.cancel(true);
    }
  }

  private final class Lines implements Flow.Subscriber<String> {
    final CompletableFuture<Void> created = new CompletableFuture<>();
    final AtomicBoolean stopped = new AtomicBoolean();
    final AtomicBoolean ended = new AtomicBoolean();
    volatile Flow.@Nullable Subscription subscription;
    volatile @Nullable Stream stream;

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
        ended(
            new IllegalStateException("watch canceled: " + result.path("cancel_reason").asText()));
      }
      for (JsonNode event : result.path("events")) {
        if ("DELETE".equals(event.path("type").asText()) && !stopped.get()) {
          onDelete.run();
        }
      }
    }

    @Override
    public void onError(Throwable t) {
      ended(t);
    }

    @Override
    public void onComplete() {
      ended(new IllegalStateException("watch stream ended"));
    }

    /**
     * The stream is over: before etcd confirmed it, its opener learns (and retries or fails);
     * after, the watch wakes the waiter and opens a new one. Once per stream, and never for a
     * stream that was closed on purpose.
     */
    void ended(Throwable why) {
      if (!ended.compareAndSet(false, true)) {
        return;
      }
      boolean wasConfirmed = created.isDone() && !created.isCompletedExceptionally();
      created.completeExceptionally(why);
      Stream s = stream;
      if (wasConfirmed && !stopped.get() && s != null) {
        broken(s, why);
      }
    }
  }
}
