package dev.locksmith.tck;

/** The promise groups of the kit, each one interface of rules ({@link Rule#group()}). */
public enum RuleGroup {
  MUTUAL_EXCLUSION(1, "Mutual exclusion"),
  OWNERSHIP(2, "Owner-checked release and extend"),
  EXPIRY(3, "Expiry and no deadlock: timing from both sides"),
  RENEWAL(4, "Leases and renewal"),
  FENCING(5, "Fencing"),
  REENTRANCY(6, "Reentrancy"),
  WAITING(7, "Waiting"),
  READ_WRITE(8, "Read-write locks"),
  MULTI_LOCK(9, "Multi-lock"),
  BAD_INPUT(10, "Bad input"),
  STORE_FAILURE(11, "Store failure"),
  STORE_SPI(12, "The store SPI, driven directly with explicit owners"),
  PROCESSES(13, "Separate processes"),
  ENGINE_UNDER_FAULTS(14, "The engine's promises under store faults"),
  FOOTPRINT(15, "Footprint and eviction");

  private final int number;
  private final String title;

  RuleGroup(int number, String title) {
    this.number = number;
    this.title = title;
  }

  /** The group's number, the first part of its rules' ids. */
  public int number() {
    return number;
  }

  /** The group's title. */
  public String title() {
    return title;
  }

  static RuleGroup of(int number) {
    for (RuleGroup g : values()) {
      if (g.number == number) {
        return g;
      }
    }
    throw new IllegalArgumentException("no rule group " + number);
  }
}
