package dev.kvrelay.launcher;

import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (guarded by this object's monitor): where a stop request (SIGTERM, SIGINT) goes. A request that
 * arrives before anything is running — the relay may still be connecting to its discovery store — is kept and
 * delivered the moment a target is bound, so a signal during start-up still gives an orderly stop.
 */
final class StopRequest {
  private @Nullable Consumer<String> target;
  private @Nullable String pending;

  /** Delivers {@code why} to the bound target, or keeps it (the first request wins) until one is bound. */
  void request(String why) {
    Consumer<String> t;
    synchronized (this) {
      t = target;
      if (t == null) {
        if (pending == null) {
          pending = why;
        }
        return;
      }
    }
    t.accept(why);
  }

  /** Binds {@code onStop} (replacing any earlier target) and hands it a request kept so far. */
  void bind(Consumer<String> onStop) {
    Objects.requireNonNull(onStop, "onStop");
    String kept;
    synchronized (this) {
      target = onStop;
      kept = pending;
      pending = null;
    }
    if (kept != null) {
      onStop.accept(kept);
    }
  }

  /** The request kept while no target was bound, if any. */
  synchronized @Nullable String pending() {
    return pending;
  }
}
