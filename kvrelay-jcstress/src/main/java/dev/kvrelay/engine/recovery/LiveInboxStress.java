package dev.kvrelay.engine.recovery;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Not thread-safe by itself (each nested class is one jcstress state): the many-producer, one-consumer
 * contract of {@link LiveInbox}, the ring between event-plane delivery threads and a pool's serial task.
 */
public final class LiveInboxStress {
  private LiveInboxStress() {}

  static RouterEvent event(long id) {
    return new RouterEvent(7, StorageTier.DEVICE, ResidencyDomain.WORKER, id, 0, KvEventData.Cleared.INSTANCE);
  }

  static EventEnvelope envelope(long sequence) {
    return new EventEnvelope(1, sequence, 0, "kv-events");
  }

  /**
   * Not thread-safe (a jcstress state): two delivery threads offer one pair each; the second is also the
   * consumer and polls once right after its offer (two actors: jcstress skips tests with more actors than
   * this two-core machine has CPUs); the arbiter drains the rest. Every pair arrives exactly once, with its
   * own envelope.
   */
  @JCStressTest
  @Outcome(id = "2, 3, 1", expect = ACCEPTABLE, desc = "both pairs delivered once, envelopes matching")
  @Outcome(expect = FORBIDDEN, desc = "a pair was lost, duplicated or torn")
  @State
  public static class TwoProducersOneConsumer {
    final LiveInbox inbox = new LiveInbox(4);
    int delivered;
    int idSum;
    boolean matched = true;

    void take() {
      delivered++;
      long id = inbox.event().eventId();
      idSum += (int) id;
      matched &= inbox.envelope().sequence() == id;
    }

    @Actor
    public void producerA() {
      inbox.offer(envelope(1), event(1));
    }

    @Actor
    public void producerBThenConsumer() {
      inbox.offer(envelope(2), event(2));
      if (inbox.poll()) {
        take();
      }
    }

    @Arbiter
    public void drain(III_Result r) {
      while (inbox.poll()) {
        take();
      }
      r.r1 = delivered;
      r.r2 = idSum;
      r.r3 = matched ? 1 : 0;
    }
  }

  /**
   * Not thread-safe (a jcstress state): a full ring refuses the offer (the caller counts the drop) and never
   * overwrites an unconsumed pair, even while the consumer frees a slot concurrently.
   */
  @JCStressTest
  @Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "the offer lost the race for the freed slot: refused")
  @Outcome(id = "2, 3", expect = ACCEPTABLE, desc = "the consumer freed a slot first: accepted")
  @Outcome(expect = FORBIDDEN, desc = "a pair was overwritten or lost")
  @State
  public static class FullRingNeverOverwrites {
    final LiveInbox inbox = new LiveInbox(2);

    {
      inbox.offer(envelope(1), event(1));
      inbox.offer(envelope(2), event(2));
    }

    @Actor
    public void producer() {
      inbox.offer(envelope(3), event(3));
    }

    @Actor
    public void consumer() {
      inbox.poll(); // the ring is not empty: this always takes pair 1
    }

    @Arbiter
    public void drain(II_Result r) {
      int remaining = 0;
      long last = 0;
      while (inbox.poll()) {
        remaining++;
        last = inbox.event().eventId();
      }
      // r1: pairs left after the consumer's one poll (1 refused, 2 accepted); r2: the id of the last one.
      r.r1 = remaining;
      r.r2 = (int) last;
    }
  }

  /**
   * Not thread-safe (a jcstress state): capacity under contention. A ring of 2 holds one pair; two delivery
   * threads offer at once for the one free slot. Exactly one offer is accepted, the other refused (the caller
   * counts the drop), and the ring then holds exactly the two accepted pairs in order. r1: offers accepted;
   * r2: pairs drained by the arbiter; r3: the id of the second pair (2 or 3; 0 if missing).
   */
  @JCStressTest
  @Outcome(id = "1, 2, 2", expect = ACCEPTABLE, desc = "producer A won the last slot, B was refused")
  @Outcome(id = "1, 2, 3", expect = ACCEPTABLE, desc = "producer B won the last slot, A was refused")
  @Outcome(expect = FORBIDDEN, desc = "capacity exceeded, an accepted pair lost, or a refused one stored")
  @State
  public static class TwoProducersOneFreeSlot {
    final LiveInbox inbox = new LiveInbox(2);
    final AtomicInteger accepted = new AtomicInteger();

    {
      inbox.offer(envelope(1), event(1));
    }

    @Actor
    public void producerA() {
      if (inbox.offer(envelope(2), event(2))) {
        accepted.incrementAndGet();
      }
    }

    @Actor
    public void producerB() {
      if (inbox.offer(envelope(3), event(3))) {
        accepted.incrementAndGet();
      }
    }

    @Arbiter
    public void drain(III_Result r) {
      int drained = 0;
      long second = 0;
      while (inbox.poll()) {
        drained++;
        if (drained == 2 && inbox.envelope().sequence() == inbox.event().eventId()) {
          second = inbox.event().eventId();
        }
      }
      r.r1 = accepted.get();
      r.r2 = drained;
      r.r3 = (int) second;
    }
  }
}
