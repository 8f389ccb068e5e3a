package dev.kvrelay.engine.consumer;

import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wire.WireSource;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the consumer task, except the published catalog, readiness and load snapshots
 * (volatile, any thread) — one relay (one DC) of a {@link RelayConsumer}: its catalog, readiness and load views and
 * the three streams that feed them.
 */
final class ConsumerSource {
  final String name;
  final WireSource relay;
  final CatalogView catalog = new CatalogView();
  final ReadinessView readinessView = new ReadinessView();
  final LoadView loadView = new LoadView();
  final CatalogWatch catalogWatch;
  final ReadinessWatch readinessWatch;
  final LoadWatch loadWatch;
  /** True once the source was stopped for good. */
  boolean stopped;
  /** The usable pools of the applied catalog revision, or null before the first applied update or after a reset. */
  volatile @Nullable CatalogSnapshot catalogSnapshot;
  volatile ReadinessSnapshot readiness = ReadinessSnapshot.EMPTY;
  volatile LoadSnapshot load = LoadSnapshot.EMPTY;

  ConsumerSource(String name, WireSource relay, ConsumerContext context, SourceEvents events) {
    this.name = name;
    this.relay = relay;
    this.catalogWatch = new CatalogWatch(this, context, events);
    this.readinessWatch = new ReadinessWatch(this, context, events);
    this.loadWatch = new LoadWatch(this, context, events);
  }

  /** Closes the source's watches and drops its catalog, readiness and load state. */
  void dropState() {
    catalogWatch.close();
    readinessWatch.close();
    loadWatch.close();
    catalog.reset();
    catalogSnapshot = null;
    readinessView.reset();
    loadView.reset();
    readiness = readinessView.snapshot();
    load = loadView.snapshot();
  }
}
