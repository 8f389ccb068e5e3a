package dev.kvrelay.engine.consumer;

import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.ReadinessUpdate;
import dev.kvrelay.engine.wire.TopologyEntryValidator;
import java.util.List;

/**
 * Not thread-safe, test only: the gRPC tests' handle on the consumer's package-private {@link ReadinessView}, so
 * that they can apply what the client decoded exactly as the consumer does. It works because the tests run on the
 * class path, where this class shares the engine's {@code dev.kvrelay.engine.consumer} package.
 */
public final class ReadinessViewProbe {
  private final ReadinessView view = new ReadinessView();

  /** As {@link ReadinessView#applyWire}; a broken ordering rule is thrown as its (package-private) exception. */
  public ReadinessViewProbe applyWire(long revision, List<TopologyEntryValidator.EntryWire> entries,
      long nowUs) throws Exception {
    view.applyWire(revision, entries, nowUs);
    return this;
  }

  /** As {@link ReadinessView#apply(TopologySnapshot, long)}. */
  public ReadinessViewProbe apply(TopologySnapshot snapshot, long nowUs) throws Exception {
    view.apply(snapshot, nowUs);
    return this;
  }

  /** As {@link ReadinessView#apply(ReadinessUpdate, long)}. */
  public ReadinessViewProbe apply(ReadinessUpdate update, long nowUs) throws Exception {
    view.apply(update, nowUs);
    return this;
  }

  /** The view's published snapshot. */
  public ReadinessSnapshot snapshot() {
    return view.snapshot();
  }

  /** Entries dropped so far because their key could not be read. */
  public long droppedTotal() {
    return view.droppedTotal();
  }
}
