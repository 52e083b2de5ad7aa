package dev.locksmith.memcached.internal;

import java.nio.charset.StandardCharsets;
import net.spy.memcached.CachedData;
import net.spy.memcached.transcoders.Transcoder;

/**
 * Stores strings as plain UTF-8 bytes with flags 0, so lock items are readable with any memcached
 * client ({@code get locksmith:lock:orders}) and no Java serialization is involved.
 */
public final class TextTranscoder implements Transcoder<String> {

  /** The shared instance; it has no state. */
  public static final TextTranscoder INSTANCE = new TextTranscoder();

  private TextTranscoder() {}

  @Override
  public boolean asyncDecode(CachedData d) {
    return false;
  }

  @Override
  public CachedData encode(String o) {
    return new CachedData(0, o.getBytes(StandardCharsets.UTF_8), getMaxSize());
  }

  @Override
  public String decode(CachedData d) {
    return new String(d.getData(), StandardCharsets.UTF_8);
  }

  @Override
  public int getMaxSize() {
    return CachedData.MAX_SIZE;
  }
}
