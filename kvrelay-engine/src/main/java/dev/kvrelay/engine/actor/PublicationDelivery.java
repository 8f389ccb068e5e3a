package dev.kvrelay.engine.actor;


import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.CkfPublicationException;
import dev.kvrelay.engine.stats.PoolStats.ActorState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Not thread-safe: confined to the pool actor's task; hands the actor's publications to the
 * {@link PublicationListener} and answers each Subscribe (a running actor's with a barrier snapshot).
 *
 * <p>Lag: if the listener cannot take a publication (or throws, counted as a listener error), a lag is counted and
 * the publisher fenced ({@code DELIVERY_UNCERTAIN}): a refused delta goes back to the producer as failed, a refused
 * snapshot retires the lease, so later drains publish nothing until the next Subscribe takes a barrier snapshot,
 * which every consumer must then re-install. Called once per drain, never per event.
 */
final class PublicationDelivery {
  /** The actor's logger: the log lines read as they did before this type existed. */
  private static final Logger LOG = LoggerFactory.getLogger(PoolActor.class);

  private final CkfProducer producer;
  private final PublicationListener publications;
  private final ActorCounters counters;

  PublicationDelivery(CkfProducer producer, PublicationListener publications, ActorCounters counters) {
    this.producer = producer;
    this.publications = publications;
    this.counters = counters;
  }

  /** Hands one publication to the listener; on refusal records a lag and fences the publisher. */
  boolean deliver(CkfPublication p) {
    boolean ok;
    try {
      ok = publications.offer(p);
    } catch (RuntimeException e) {
      counters.listenerErrors++;
      LOG.warn("pool actor: publication listener failed", e);
      ok = false;
    }
    if (ok) {
      if (p instanceof CkfDelta) {
        counters.publishedDeltas++;
      } else {
        counters.publishedSnapshots++;
      }
      return true;
    }
    counters.lags++;
    LOG.warn("pool actor: publication listener lagging; subscribers must re-snapshot");
    if (p instanceof CkfDelta d) {
      producer.deliveryFailed(d);
    } else {
      producer.retireLease();
    }
    return false;
  }

  /**
   * Answers a Subscribe: on an actor in {@code state} other than RUNNING the reply fails {@code FENCED} or
   * {@code SHUT_DOWN}; else it is a barrier snapshot of the lease, whose pending tail is delivered first (and the
   * barrier taken again if the tail is refused), or fails {@code SEQUENCE_EXHAUSTED} if the producer cannot take one.
   *
   * @return true once a barrier was taken (the pending window is then drained: the actor disarms its timer)
   */
  boolean subscribe(PoolCommand.Subscribe s, ActorState state) {
    if (state != ActorState.RUNNING) {
      s.reply().completeExceptionally(state == ActorState.FENCED
          ? new PoolActorException(PoolActorException.Reason.FENCED, "pool actor is fenced")
          : new PoolActorException(PoolActorException.Reason.SHUT_DOWN, "pool actor is shut down"));
      return false;
    }
    boolean drained = false;
    try {
      BarrierSnapshot barrier = producer.snapshotAfterBarrier(s.lease());
      drained = true;
      CkfDelta tail = barrier.tail();
      if (tail != null && !deliver(tail)) {
        barrier = producer.snapshotAfterBarrier(s.lease());
      }
      s.reply().complete(barrier);
    } catch (CkfPublicationException e) {
      s.reply().completeExceptionally(
          new PoolActorException(PoolActorException.Reason.SEQUENCE_EXHAUSTED, String.valueOf(e.getMessage())));
    }
    return drained;
  }
}
