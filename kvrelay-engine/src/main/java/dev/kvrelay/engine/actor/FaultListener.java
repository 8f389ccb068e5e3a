package dev.kvrelay.engine.actor;

/**
 * Called only from the pool actor's confined task: receives every source fault with its disposition
 * (producer.md §3.5); the host applies RejectSource / fencing. Must not block.
 */
@FunctionalInterface
public interface FaultListener {
  /** One fault; the actor has already counted and logged it. */
  void onFault(SourceFault fault);
}
