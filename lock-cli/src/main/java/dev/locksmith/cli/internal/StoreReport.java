package dev.locksmith.cli.internal;

import dev.locksmith.Capability;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** What the comparison found out about one store. */
public final class StoreReport {

  final String name;
  final String uri;
  Set<Capability> capabilities = EnumSet.noneOf(Capability.class);
  @Nullable Percentiles uncontended;
  double throughputPerSecond;
  @Nullable Percentiles handoff;
  @Nullable Duration crashFreedAfter;
  String crash = "not run";
  String pause = "not run";
  String restart = "not run";
  String clockSkew = "not run";
  String staleRelease = "not run";
  String footprint = "not run";
  String tokenAfterEviction = "not run";
  final List<String> brokenPromises = new ArrayList<>();

  /** Whether the command started the store (through its fixture) rather than given a URI. */
  boolean startedHere;

  /** The command lines of the processes started for the store; none for one inside this JVM. */
  List<String> processes = List.of();

  /** What the store's server says about itself. */
  ServerFacts.Facts facts = ServerFacts.Facts.NONE;

  StoreReport(String name, String uri) {
    this.name = name;
    this.uri = uri;
  }

  /** The store's name in the comparison. */
  public String name() {
    return name;
  }

  /** Promises the comparison saw broken (empty for a sound store). */
  public List<String> brokenPromises() {
    return brokenPromises;
  }

  void broken(String what) {
    brokenPromises.add(what);
  }
}
