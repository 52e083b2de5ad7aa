package dev.locksmith.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.Lease;
import dev.locksmith.LockClient;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With Micrometer Tracing and its OpenTelemetry bridge on the class path, a Boot application sees
 * Locksmith's acquires, waits, renewals, releases and losses as spans, on a real Redis server; the
 * spans go to an in-memory exporter (no collector).
 */
class TracingTest {

  private static final AttributeKey<String> LOCK_NAME =
      AttributeKey.stringKey("locksmith.lock.name");
  private static final AttributeKey<String> STORE = AttributeKey.stringKey("locksmith.store");
  private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("locksmith.outcome");

  /** The exporter the application's tracer provider sends spans to. */
  @Configuration(proxyBeanMethods = false)
  static class InMemorySpans {
    @Bean
    InMemorySpanExporter inMemorySpanExporter() {
      return InMemorySpanExporter.create();
    }
  }

  private ConfigurableApplicationContext app;
  private InMemorySpanExporter spans;

  @BeforeEach
  void start() {
    app =
        new SpringApplicationBuilder(LockedApp.class, InMemorySpans.class)
            .properties(
                Map.of(
                    "locksmith.uri",
                    SharedRedis.uri(),
                    "management.tracing.sampling.probability",
                    "1.0"))
            .run();
    spans = app.getBean(InMemorySpanExporter.class);
  }

  @AfterEach
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  private List<SpanData> exported() {
    app.getBean(SdkTracerProvider.class).forceFlush().join(10, TimeUnit.SECONDS);
    return spans.getFinishedSpanItems();
  }

  private SpanData one(String name, String lock) {
    return exported().stream()
        .filter(s -> s.getName().equals(name) && lock.equals(s.getAttributes().get(LOCK_NAME)))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError("no span '" + name + "' of " + lock + " in " + exported()));
  }

  @Test
  @DisplayName(
      "an acquire that waited, and the release, are spans of the request; the wait is the"
          + " acquire's child; the lock name is a key, never the span's name")
  void acquireWaitAndReleaseAreSpansOfTheRequest() throws Exception {
    LockClient client = app.getBean(LockClient.class);
    Tracer tracer = app.getBean(Tracer.class);
    Lease holder = client.lock("traced:a").tryAcquire().orElseThrow();
    CompletableFuture<Void> request =
        CompletableFuture.runAsync(
            () -> {
              Span parent = tracer.nextSpan().name("request").start();
              try (Tracer.SpanInScope in = tracer.withSpan(parent)) {
                client.lock("traced:a").acquire(Duration.ofSeconds(30)).release();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              } finally {
                parent.end();
              }
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                app.getBean(io.micrometer.core.instrument.MeterRegistry.class)
                        .get("locksmith.waiters")
                        .gauge()
                        .value()
                    == 1);
    holder.release();
    request.get(30, TimeUnit.SECONDS);

    SpanData parent =
        exported().stream().filter(s -> s.getName().equals("request")).findFirst().orElseThrow();
    List<SpanData> acquires =
        exported().stream()
            .filter(s -> s.getName().equals("lock acquire"))
            .filter(s -> s.getParentSpanId().equals(parent.getSpanId()))
            .toList();
    assertThat(acquires).hasSize(1);
    SpanData acquire = acquires.get(0);
    assertThat(acquire.getAttributes().get(LOCK_NAME)).isEqualTo("traced:a");
    assertThat(acquire.getAttributes().get(STORE)).isEqualTo("redis");
    assertThat(acquire.getAttributes().get(OUTCOME)).isEqualTo("acquired");
    SpanData wait = one("lock wait", "traced:a");
    assertThat(wait.getParentSpanId()).isEqualTo(acquire.getSpanId());
    assertThat(wait.getAttributes().get(OUTCOME)).isEqualTo("acquired");
    List<SpanData> releases =
        exported().stream()
            .filter(s -> s.getName().equals("lock release"))
            .filter(s -> s.getParentSpanId().equals(parent.getSpanId()))
            .toList();
    assertThat(releases).hasSize(1);
    assertThat(releases.get(0).getAttributes().get(OUTCOME)).isEqualTo("released");
    assertThat(exported()).noneMatch(s -> s.getName().contains("traced:a"));
  }

  @Test
  @DisplayName("renewals are spans of their own; a loss is a span with the loss as its error")
  void renewalsAndLosses() {
    LockClient client = app.getBean(LockClient.class);
    Lease lease =
        client.lock("traced:r").withLeaseTime(Duration.ofMillis(600)).tryAcquire().orElseThrow();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                exported().stream()
                    .anyMatch(
                        s ->
                            s.getName().equals("lock renewal")
                                && "renewed".equals(s.getAttributes().get(OUTCOME))));
    SharedRedis.dropEverything(); // the store forgets the lock
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> exported().stream().anyMatch(s -> s.getName().equals("lock lost")));
    SpanData lost = one("lock lost", "traced:r");
    assertThat(lost.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(lost.getAttributes().get(AttributeKey.stringKey("locksmith.loss")))
        .isEqualTo("not_held");
    assertThat(lost.getAttributes().get(AttributeKey.stringKey("locksmith.token")))
        .isEqualTo(Long.toString(lease.fencingToken()));
    assertThat(lease.isValid()).isFalse();
  }
}
