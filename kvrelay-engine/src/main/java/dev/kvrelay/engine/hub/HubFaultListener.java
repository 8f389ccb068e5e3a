package dev.kvrelay.engine.hub;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;

/**
 * Thread-safe (implementations accept calls from any thread, e.g. the pool actor's task): told when a hub hits a
 * terminal failure (sequence gap, lease or identity drift, bucket out of range, encoder failure); the runtime
 * then fences the generation. Called without any hub lock held.
 */
@FunctionalInterface
public interface HubFaultListener {
  /** One terminal hub failure of {@code producer}'s generation of {@code pool}. */
  void onHubFault(KvPoolId pool, ProducerIdentity producer, RelayErrorReason reason, String message);
}
