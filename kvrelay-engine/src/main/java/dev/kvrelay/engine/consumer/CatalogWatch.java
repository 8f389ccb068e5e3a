package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.RelayStream;
import org.jspecify.annotations.Nullable;

/**
 * Not thread-safe: confined to the consumer task (see {@link SourceWatch}) — a source's catalog stream; opening it
 * opens the readiness and load streams, a catalog change triggers lane reconciliation, and a rejected update or a
 * stream failure resets the source (or stops it, on a contract or protocol mismatch).
 */
final class CatalogWatch extends SourceWatch<CatalogUpdate> {
  static final String SUFFIX = "/catalog";

  CatalogWatch(ConsumerSource source, ConsumerContext context, SourceEvents events) {
    super(source, context, events, SUFFIX);
  }

  @Override
  RelayStream<CatalogUpdate> openStream(String id) throws RelayException {
    return source.relay.watchCatalog(id);
  }

  @Override
  void open() {
    super.open();
    if (isOpen()) {
      source.readinessWatch.open();
      source.loadWatch.open();
    }
  }

  @Override
  boolean onMessage(CatalogUpdate update) {
    CatalogResult result = source.catalog.apply(update, context.epochMicros());
    if (result instanceof CatalogResult.Applied applied) {
      succeeded();
      for (PoolChange c : applied.changes()) {
        if (c.kind() == PoolChange.Kind.QUARANTINED) {
          context.counters.quarantinedDescriptor();
        }
      }
      source.catalogSnapshot = source.catalog.snapshot();
      events.catalogChanged();
      source.load = source.loadView.rejoin(source.catalog);
      return true;
    }
    if (result instanceof CatalogResult.Heartbeat) {
      succeeded();
      return true;
    }
    CatalogError error = ((CatalogResult.Rejected) result).error();
    context.counters.catalogRejected(error);
    if (error == CatalogError.CONTRACT_MISMATCH || error == CatalogError.PROTOCOL_VERSION_MISMATCH) {
      events.stopSource(source);
    } else {
      events.resetSource(source);
    }
    return false;
  }

  @Override
  void onEnd(@Nullable RelayErrorReason reason) {
    if (reason != null && ConsumerContext.fatal(reason)) {
      events.stopSource(source);
    } else {
      events.resetSource(source);
    }
  }
}
