package dev.kvrelay.engine;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.SubscriberId;
import dev.kvrelay.engine.hub.HubRegistry;
import dev.kvrelay.engine.stream.AdmissionPermit;
import dev.kvrelay.engine.stream.RelayAdmission;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Thread-safe (final references to thread-safe parts only): the SubscribeKvPool plumbing of {@link RelayEngine},
 * namely the synchronous admission checks, the pool-stream permit and the hand-off of the hub's stream off the
 * pool actor's thread.
 */
final class PoolSubscriptions {
  private final ControlTask control;
  private final RelayAdmission admission;
  private final Publication publication;
  private final HubRegistry hubs;
  private final Executor async;

  /** Checked against {@code publication}'s catalog, served by {@code hubs}, completed on {@code async}. */
  PoolSubscriptions(ControlTask control, RelayAdmission admission, Publication publication, HubRegistry hubs,
      Executor async) {
    this.control = control;
    this.admission = admission;
    this.publication = publication;
    this.hubs = hubs;
    this.async = async;
  }

  /** {@code RelayEngine.subscribePool} (wan-grpc.md §2.4 steps 2–15) once its arguments are non-null. */
  CompletableFuture<RelayStream<PoolFrame>> subscribe(KvPoolId pool, ProducerIdentity expected, String subscriberId) {
    AdmissionPermit permit = null;
    try {
      SubscriberId.check(subscriberId);
      if (control.closing()) {
        throw new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "relay is shut down");
      }
      if (!expected.poolId().equals(pool)) {
        throw new RelayException(RelayErrorReason.INVALID_REQUEST, "expected producer names pool "
            + expected.poolId() + ", not " + pool);
      }
      permit = admission.poolStreams().acquire();
      KvPoolDescriptor listed = publication.catalog().find(pool).orElseThrow(
          () -> new RelayException(RelayErrorReason.POOL_NOT_FOUND, "pool " + pool + " is not in the catalog"));
      if (!listed.producer().equals(expected)) {
        throw new RelayException(RelayErrorReason.PRODUCER_CHANGED,
            "pool " + pool + " is served by " + listed.producer() + ", not " + expected);
      }
    } catch (RelayException e) {
      if (permit != null) {
        permit.close();
      }
      return CompletableFuture.failedFuture(e);
    }
    AdmissionPermit held = permit;
    // Async: the hub may complete on the pool actor's thread; callers' continuations must never run there.
    return hubs.subscribe(pool, expected, subscriberId)
        .<RelayStream<PoolFrame>>thenApplyAsync(s -> new PermitStream<>(s, held), async)
        .whenComplete((s, e) -> {
          if (e != null) {
            held.close();
          }
        });
  }
}
