package dev.kvrelay.engine.hub;

/**
 * Guarded by its {@link HubSlot}'s monitor (not thread-safe on its own; every method is called with that monitor
 * held): the admissions of one slot that have begun but not yet opened their stream or been abandoned.
 *
 * <p>A slot with a pending admission is never evicted as idle; a retired or failed slot admits no one.
 */
final class SlotAdmissions {
  private int pending;

  /** Begins an admission on a slot in {@code phase}: counted as pending unless the slot is retired or failed. */
  HubSlot.Admission begin(HubSlot.Phase phase) {
    switch (phase) {
      case RETIRED, FAILED -> {
        return HubSlot.Admission.UNAVAILABLE;
      }
      case READY -> {
        pending++;
        return HubSlot.Admission.READY;
      }
      case INITIALIZING -> {
        pending++;
        return HubSlot.Admission.WAIT;
      }
      default -> {
        pending++;
        return HubSlot.Admission.NEEDS_INIT;
      }
    }
  }

  /** One pending admission ended (opened its stream, or was abandoned). */
  void end() {
    pending--;
  }

  /** True if no admission is pending. */
  boolean none() {
    return pending == 0;
  }
}
