package dev.locksmith.tck;

import dev.locksmith.Capability;
import java.util.Set;

/**
 * What the kit learned about the store under test once: its capabilities and which hooks its
 * contract class provides.
 */
record StoreProfile(Set<Capability> capabilities, Set<KitHook> hooks) {

  /** Why a rule that needs {@code hook} is skipped. */
  static String missing(KitHook hook) {
    switch (hook) {
      case FAULTS:
        return "no StoreFaults hook (override faults() to run it)";
      case OUTSIDE_ACTOR:
        return "no OutsideActor hook (override outsideActor() to run it)";
      case LINKS:
        return "no ClientLinks hook (override links() to run it)";
      case INSPECTOR:
        return "no StoreInspector hook (override inspector() to run it)";
      case STORE_URI:
        return "no store URI another process can open (override storeUri() to run it)";
      default:
        return "the clients are not the engine's, so the kit cannot reach their store";
    }
  }
}
