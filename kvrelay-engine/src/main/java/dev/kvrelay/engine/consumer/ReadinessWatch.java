package dev.kvrelay.engine.consumer;

import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.wire.ReadinessUpdate;
import dev.kvrelay.engine.wire.RelayStream;

/**
 * Not thread-safe: confined to the consumer task (see {@link SourceWatch}) — a source's readiness stream, feeding
 * its {@code ReadinessView}.
 */
final class ReadinessWatch extends ViewWatch<ReadinessUpdate> {
  static final String SUFFIX = "/readiness";

  ReadinessWatch(ConsumerSource source, ConsumerContext context, SourceEvents events) {
    super(source, context, events, SUFFIX);
  }

  @Override
  RelayStream<ReadinessUpdate> openStream(String id) throws RelayException {
    return source.relay.watchReadinessUpdates(id);
  }

  @Override
  void apply(ReadinessUpdate update) throws StreamOrderException {
    source.readinessView.apply(update, context.epochMicros());
    source.readiness = source.readinessView.snapshot();
  }

  @Override
  void resetView() {
    source.readinessView.reset();
    source.readiness = source.readinessView.snapshot();
  }
}
