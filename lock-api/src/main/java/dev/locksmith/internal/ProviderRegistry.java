package dev.locksmith.internal;

import dev.locksmith.LockClient;
import dev.locksmith.LockOptions;
import dev.locksmith.UnsupportedLockUriException;
import dev.locksmith.spi.LockProvider;
import dev.locksmith.spi.LockStore;
import dev.locksmith.spi.LockUri;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds {@link LockProvider}s with {@link ServiceLoader} and opens clients by URI scheme.
 *
 * <p>Providers are looked up on every open, from the class loader that loaded Locksmith and from
 * the thread's context class loader, so a provider added at run time (a plugin) is seen. A provider
 * that fails to load is logged and skipped; two providers claiming one scheme make opening that
 * scheme fail with a message that names both.
 */
public final class ProviderRegistry {

  private static final Logger log = LoggerFactory.getLogger(ProviderRegistry.class);
  private static final ProviderRegistry SHARED = new ProviderRegistry(ProviderRegistry::discover);

  private final Supplier<List<LockProvider>> providers;

  /** A registry over the providers that {@code providers} supplies (tests pass their own). */
  public ProviderRegistry(Supplier<List<LockProvider>> providers) {
    this.providers = providers;
  }

  /** The registry that {@link LockClient#open(String)} uses. */
  public static ProviderRegistry shared() {
    return SHARED;
  }

  /**
   * The providers by scheme, in scheme order; a scheme with two or more providers lists them all.
   */
  public Map<String, List<LockProvider>> byScheme() {
    Map<String, List<LockProvider>> map = new TreeMap<>();
    for (LockProvider p : providers.get()) {
      Set<String> schemes;
      try {
        schemes = p.schemes();
      } catch (RuntimeException e) {
        log.warn("Skipping lock provider {}: schemes() failed", p.getClass().getName(), e);
        continue;
      }
      for (String s : schemes) {
        map.computeIfAbsent(s.toLowerCase(java.util.Locale.ROOT), k -> new ArrayList<>()).add(p);
      }
    }
    return map;
  }

  /** Opens a client for {@code uri}; see {@link LockClient#open(String, LockOptions)}. */
  public LockClient open(String uri, LockOptions options) {
    LockUri parsed = LockUri.parse(uri);
    Map<String, List<LockProvider>> all = byScheme();
    List<LockProvider> candidates = all.get(parsed.scheme());
    if (candidates == null || candidates.isEmpty()) {
      throw new UnsupportedLockUriException(parsed.scheme(), new TreeSet<>(all.keySet()));
    }
    if (candidates.size() > 1) {
      throw new IllegalStateException(
          "more than one lock provider claims URI scheme '"
              + parsed.scheme()
              + "': "
              + candidates.stream()
                  .map(p -> p.getClass().getName())
                  .collect(Collectors.joining(" and "))
              + "; remove one of them from the class path");
    }
    LockProvider provider = candidates.get(0);
    Map<String, String> unknown = new LinkedHashMap<>(parsed.options());
    unknown.keySet().removeAll(CommonOptions.NAMES);
    unknown.keySet().removeAll(provider.options());
    if (!unknown.isEmpty() && !provider.passesUnknownOptions()) {
      Set<String> known = new TreeSet<>(CommonOptions.NAMES);
      known.addAll(provider.options());
      throw new IllegalArgumentException(
          "unknown option"
              + (unknown.size() > 1 ? "s " : " ")
              + unknown.keySet().stream().map(k -> "'" + k + "'").collect(Collectors.joining(", "))
              + " in lock URI '"
              + parsed
              + "'; known options for scheme '"
              + parsed.scheme()
              + "': "
              + String.join(", ", known));
    }
    LockOptions merged = options.mergedWith(CommonOptions.parse(parsed.options()));
    LockStore store = provider.open(parsed.withoutOptions(CommonOptions.NAMES), merged);
    try {
      return new EngineClient(store, merged);
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  private static List<LockProvider> discover() {
    Map<String, LockProvider> found = new LinkedHashMap<>();
    load(ServiceLoader.load(LockProvider.class, LockClient.class.getClassLoader()), found);
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    if (context != null && context != LockClient.class.getClassLoader()) {
      load(ServiceLoader.load(LockProvider.class, context), found);
    }
    return new ArrayList<>(found.values());
  }

  private static void load(ServiceLoader<LockProvider> loader, Map<String, LockProvider> found) {
    Iterator<LockProvider> it = loader.iterator();
    // A broken configuration file can make hasNext() fail on every call; stop after a few.
    for (int failures = 0; failures < 32; ) {
      try {
        if (!it.hasNext()) {
          return;
        }
        LockProvider p = it.next();
        found.putIfAbsent(p.getClass().getName(), p);
      } catch (ServiceConfigurationError | LinkageError e) {
        failures++;
        log.warn("Skipping a lock provider that failed to load: {}", e.toString(), e);
      }
    }
  }
}
