package dev.kvrelay.spi.discovery.sources;

/**
 * Confined to the poller's thread: receives each new valid sources document, one at a time. Returning normally
 * means the sources were applied; throwing keeps the previous ones applied and is reported as the poller's last
 * error, and the same document is offered again at the next poll.
 */
@FunctionalInterface
public interface SourcesListener {

  /** A valid document whose revision differs from the applied one. */
  void onSources(SourcesDocument document) throws Exception;
}
