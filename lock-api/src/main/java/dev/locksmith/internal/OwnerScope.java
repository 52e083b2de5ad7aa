package dev.locksmith.internal;

/**
 * Whose holds an owner id stands for: the engine undoes or retries a store call of unknown outcome
 * only for an owner that stands for that one hold, since for a caller's own owner id (shared by its
 * nested holds, also on other clients) a repeated release could end a hold that was not meant.
 */
enum OwnerScope {
  /** An id the engine made for one attempt (the default owner, a thread view's owner). */
  THIS_HOLD,
  /** The caller's id ({@code withOwner}), shared by every hold the caller takes with it. */
  CALLER
}
