package dev.kvrelay.engine.hub;

import dev.kvrelay.ckf.producer.BarrierSnapshot;
import java.util.concurrent.CompletableFuture;

/**
 * Thread-safe (implementations accept calls from any thread): how a hub reaches its pool actor; the runtime
 * implements it over {@code PoolActor.submit}.
 */
public interface HubSource {
  /** Submits {@code PoolCommand.Subscribe(lease)}: the barrier snapshot that starts {@code lease}. */
  CompletableFuture<BarrierSnapshot> subscribe(long lease);

  /** Submits {@code PoolCommand.RetireLease(lease)} (idle eviction, retirement). */
  void retireLease(long lease);
}
