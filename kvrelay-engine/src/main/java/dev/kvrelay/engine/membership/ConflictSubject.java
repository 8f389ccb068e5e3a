package dev.kvrelay.engine.membership;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.spi.discovery.ModelKey;

/** Immutable and thread-safe: what a membership conflict is about. */
sealed interface ConflictSubject
    permits ConflictSubject.Endpoint, ConflictSubject.Card, ConflictSubject.Worker, ConflictSubject.Binding {

  /**
   * Immutable and thread-safe: the whole serving endpoint.
   *
   * @param endpoint the serving endpoint
   */
  record Endpoint(DynamoEndpointId endpoint) implements ConflictSubject {
    @Override
    public String toString() {
      return "Endpoint(" + endpoint.path() + ")";
    }
  }

  /**
   * Immutable and thread-safe: one model card.
   *
   * @param key the card's discovery key
   */
  record Card(ModelKey key) implements ConflictSubject {
    @Override
    public String toString() {
      return "Card(" + key.path() + ")";
    }
  }

  /**
   * Immutable and thread-safe: one worker (instance) of an endpoint.
   *
   * @param endpoint the serving endpoint
   * @param workerId the u64 worker id
   */
  record Worker(DynamoEndpointId endpoint, long workerId) implements ConflictSubject {
    @Override
    public String toString() {
      return "Worker(" + endpoint.path() + "/" + Long.toUnsignedString(workerId) + ")";
    }
  }

  /**
   * Immutable and thread-safe: a request-facing model name.
   *
   * @param name the model name
   */
  record Binding(String name) implements ConflictSubject {
    @Override
    public String toString() {
      return "Binding(" + name + ")";
    }
  }
}
