package dev.locksmith.tck;

import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** The names of the bad-input rules: names every store must refuse, and names that are data. */
final class KitNames {

  private KitNames() {}

  /** Names the engine refuses, with what is wrong with each. */
  static Stream<Arguments> badNames() {
    return Stream.of(
        Arguments.of("empty", ""),
        Arguments.of("blank", "   "),
        Arguments.of("a tab only", "\t"),
        Arguments.of("257 ASCII bytes", "a".repeat(257)),
        Arguments.of("257 UTF-8 bytes of multibyte text", "€".repeat(85) + "é"),
        Arguments.of("65 four-byte emoji (260 bytes)", "🔒".repeat(65)),
        Arguments.of("a newline", "a\nb"),
        Arguments.of("a carriage return", "a\rb"),
        Arguments.of("a NUL", "a\u0000b"),
        Arguments.of("DEL", "a\u007Fb"),
        Arguments.of("a C1 control (NEL)", "a\u0085b"),
        Arguments.of("a line separator (U+2028)", "a\u2028b"),
        Arguments.of("a paragraph separator (U+2029)", "a\u2029b"),
        Arguments.of("a right-to-left override (U+202E)", "a\u202Eb"),
        Arguments.of("a first-strong isolate (U+2068)", "a\u2068b"),
        Arguments.of("an unpaired high surrogate", "a\uD800b"),
        Arguments.of("an unpaired low surrogate", "a\uDC00"),
        Arguments.of("a lone high surrogate at the end", "lock\uD83D"));
  }

  /** Names full of characters that some key or query syntax treats as code. */
  static Stream<Arguments> dataNames() {
    return Stream.of(
        Arguments.of("quotes", "it's \"quoted\" `too`"),
        Arguments.of("SQL injection", "x'; DROP TABLE locks; --"),
        Arguments.of("Lua code", "x\") redis.call('flushall') --"),
        Arguments.of("a Redis hash tag", "{tag}rest"),
        Arguments.of("an empty hash tag", "{}x{y}"),
        Arguments.of("glob characters", "*?[a-z]\\"),
        Arguments.of("format specifiers", "%s%n%d${x}"),
        Arguments.of("path segments", "../../etc/passwd"),
        Arguments.of("spaces and colons", "orders : 42 "),
        Arguments.of("emoji", "lock 🔒😀 ünïcödé 锁"),
        Arguments.of("256 ASCII bytes", "n".repeat(256)),
        Arguments.of("256 bytes of multibyte text", "€".repeat(85) + "a"),
        Arguments.of("64 four-byte emoji (256 bytes)", "😀".repeat(64)),
        Arguments.of("a memcached-hostile key", "key with spaces and \u00a0 nbsp"));
  }
}
