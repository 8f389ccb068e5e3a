package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.RelayStream;

/**
 * Not thread-safe: confined to the consumer task (see {@link SourceWatch}) — a source's pool-load stream, feeding
 * its {@link LoadView} joined with its catalog.
 */
final class LoadWatch extends ViewWatch<KvPoolLoadUpdate> {
  static final String SUFFIX = "/load";

  LoadWatch(ConsumerSource source, ConsumerContext context, SourceEvents events) {
    super(source, context, events, SUFFIX);
  }

  @Override
  RelayStream<KvPoolLoadUpdate> openStream(String id) throws RelayException {
    return source.relay.watchPoolLoad(id);
  }

  @Override
  void apply(KvPoolLoadUpdate window) throws StreamOrderException {
    source.load = source.loadView.apply(window, source.catalog, context.epochMicros());
  }

  @Override
  void resetView() {
    source.loadView.reset();
    source.load = source.loadView.snapshot();
  }
}
