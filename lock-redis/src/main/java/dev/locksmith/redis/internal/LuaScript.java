package dev.locksmith.redis.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A Lua script and its SHA-1, computed here so that it can be run with {@code EVALSHA} without a
 * {@code SCRIPT LOAD} round trip first.
 */
public final class LuaScript {

  private final String name;
  private final String source;
  private final String sha;

  LuaScript(String name, String source) {
    this.name = name;
    this.source = source;
    this.sha = sha1(source);
  }

  /** A short name for messages. */
  public String name() {
    return name;
  }

  /** The Lua text. */
  public String source() {
    return source;
  }

  /** The lower-case hex SHA-1 that {@code EVALSHA} takes. */
  public String sha() {
    return sha;
  }

  private static String sha1(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
      StringBuilder sb = new StringBuilder(40);
      for (byte b : d) {
        sb.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
      }
      return sb.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-1", e);
    }
  }

  @Override
  public String toString() {
    return name + "@" + sha.substring(0, 8);
  }
}
