package dev.locksmith.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.locksmith.spi.LockUri;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LockUriTest {

  @Test
  @DisplayName("a URI splits into scheme, body and decoded options")
  void parses() {
    LockUri uri = LockUri.parse("Redis://user:secret@host:6379/2?leaseTime=5s&keyPrefix=a%3Ab");
    assertThat(uri.scheme()).isEqualTo("redis");
    assertThat(uri.body()).isEqualTo("//user:secret@host:6379/2");
    assertThat(uri.options()).containsEntry("leaseTime", "5s").containsEntry("keyPrefix", "a:b");
  }

  @Test
  @DisplayName("opaque URIs such as mem: and jdbc:h2:mem:x parse")
  void opaque() {
    assertThat(LockUri.parse("mem:").body()).isEmpty();
    LockUri jdbc = LockUri.parse("jdbc:h2:mem:locks;DB_CLOSE_DELAY=-1");
    assertThat(jdbc.scheme()).isEqualTo("jdbc");
    assertThat(jdbc.body()).isEqualTo("h2:mem:locks;DB_CLOSE_DELAY=-1");
  }

  @Test
  @DisplayName("toString hides passwords in the authority and in options")
  void redacts() {
    assertThat(LockUri.parse("rediss://user:hunter2@host:6379").toString())
        .doesNotContain("hunter2")
        .contains("user:***@host");
    assertThat(LockUri.parse("jdbc:postgresql://h/db?user=a&password=hunter2").toString())
        .doesNotContain("hunter2");
  }

  @Test
  @DisplayName(
      "serversOnly takes a host list with or without a trailing slash and refuses a path or a"
          + " fragment, showing how the store's URI looks")
  void serversOnly() {
    String example = "kv://host:1234[,host2:1234]";
    assertThat(LockUri.parse("kv://a:1,b").serversOnly(1234, example).serverList())
        .isEqualTo("a:1,b:1234");
    assertThat(LockUri.parse("kv://a/").serversOnly(1234, example).serverList())
        .isEqualTo("a:1234");
    for (String bad : Set.of("kv://a/db", "kv://a#x")) {
      assertThatThrownBy(() -> LockUri.parse(bad).serversOnly(1234, example))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + bad + "' has a path or fragment")
          .hasMessageContaining(example);
    }
  }

  @Test
  @DisplayName("operationTimeout reads the option within 10 ms to 1 minute, else the default")
  void operationTimeout() {
    assertThat(LockUri.parse("kv://a").operationTimeout(java.time.Duration.ofSeconds(1)))
        .isEqualTo(java.time.Duration.ofSeconds(1));
    assertThat(
            LockUri.parse("kv://a?operationTimeout=250ms")
                .operationTimeout(java.time.Duration.ofSeconds(1)))
        .isEqualTo(java.time.Duration.ofMillis(250));
    for (String bad : Set.of("5ms", "2min", "soon")) {
      assertThatThrownBy(
              () ->
                  LockUri.parse("kv://a?operationTimeout=" + bad)
                      .operationTimeout(java.time.Duration.ofSeconds(1)))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("operationTimeout");
    }
  }

  @Test
  @DisplayName("withoutOptions drops the named options and keeps the rest")
  void withoutOptions() {
    LockUri uri = LockUri.parse("jdbc:postgresql://h/db?leaseTime=5s&sslmode=disable");
    LockUri stripped = uri.withoutOptions(Set.of("leaseTime"));
    assertThat(stripped.options()).containsOnlyKeys("sslmode");
    assertThat(stripped.raw()).isEqualTo("jdbc:postgresql://h/db?sslmode=disable");
  }

  @Test
  @DisplayName("typed store options parse, default, and refuse bad values by name")
  void typedOptions() {
    LockUri uri = LockUri.parse("redis://h?timeout=250ms&tls=true&nodes=5&bad=x");
    java.time.Duration lo = java.time.Duration.ofMillis(10);
    java.time.Duration hi = java.time.Duration.ofMinutes(1);
    assertThat(uri.durationOption("timeout", hi, lo, hi)).hasMillis(250);
    assertThat(uri.durationOption("absent", hi, lo, hi)).isEqualTo(hi);
    assertThat(uri.booleanOption("tls", false)).isTrue();
    assertThat(uri.intOption("nodes", 3, 1, 9)).isEqualTo(5);
    assertThatThrownBy(() -> uri.durationOption("timeout", hi, java.time.Duration.ofSeconds(1), hi))
        .hasMessageContaining("option 'timeout'")
        .hasMessageContaining("must be between 1000 ms and 60 s, was 250ms");
    assertThatThrownBy(() -> uri.booleanOption("bad", false))
        .hasMessageContaining("option 'bad' must be true or false");
    assertThatThrownBy(() -> uri.intOption("bad", 1, 1, 9))
        .hasMessageContaining("must be a whole number, was x");
    assertThatThrownBy(() -> uri.intOption("nodes", 1, 1, 3))
        .hasMessageContaining("between 1 and 3");
  }

  @Test
  @DisplayName("repeated options, options without a value and control characters are refused")
  void refusesMalformed() {
    assertThatThrownBy(() -> LockUri.parse("mem:x?a=1&a=2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sets option 'a' twice");
    assertThatThrownBy(() -> LockUri.parse("mem:x?flag"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("without key=value");
    assertThatThrownBy(() -> LockUri.parse("mem:x\ny"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LockUri.parse("mem:x\u0000y"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("control character");
  }

  @Test
  @DisplayName("authority(): host lists, ports, IPv6, credentials, path and fragment")
  void authority() {
    LockUri.Authority a =
        LockUri.parse("redis-sentinel://us%40r:p%3Ass@h1,h2:26380,[::1]:7/3?x=1#master")
            .authority(26379);
    assertThat(a.user()).isEqualTo("us@r");
    assertThat(a.password()).isEqualTo("p:ss");
    assertThat(a.servers())
        .containsExactly(
            new LockUri.Server("h1", 26379),
            new LockUri.Server("h2", 26380),
            new LockUri.Server("::1", 7));
    assertThat(a.serverList()).isEqualTo("h1:26379,h2:26380,[::1]:7");
    assertThat(a.path()).isEqualTo("/3");
    assertThat(a.fragment()).isEqualTo("master");
    assertThat(a.toString()).doesNotContain("p:ss");
    LockUri.Authority b = LockUri.parse("redis://:secret@127.0.0.1").authority(6379);
    assertThat(b.user()).isNull();
    assertThat(b.password()).isEqualTo("secret");
    assertThat(b.servers()).containsExactly(new LockUri.Server("127.0.0.1", 6379));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "redis://127.0.0.1:notaport|port 'notaport'",
        "redis://h:0|port '0'",
        "redis://h:65536|port '65536'",
        "redis://h:|port ''",
        "redis://h:-1|port '-1'",
        "redis://|names no server",
        "redis://h1,,h2|empty host",
        "redis://h1,h1:6379|twice",
        "redis://::1|IPv6 addresses in brackets",
        "redis://[::1|unclosed IPv6 bracket",
        "redis://[zz]:1|no IPv6 address",
        "redis://[::1]x|after the IPv6 address",
        "redis://bad host|not a host name",
        "redis://h%zz|not a host name",
        "redis:h|must start with redis://"
      })
  @DisplayName("authority(): a malformed host list is refused, naming the bad part")
  void malformedAuthority(String uri, String message) {
    assertThatThrownBy(() -> LockUri.parse(uri).authority(6379))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
