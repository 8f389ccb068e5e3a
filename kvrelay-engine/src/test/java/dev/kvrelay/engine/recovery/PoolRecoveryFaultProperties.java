package dev.kvrelay.engine.recovery;


import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.engine.actor.ActorFixture;
import dev.kvrelay.engine.stats.PoolStats;
import dev.kvrelay.engine.stats.RelayEngineStats.EventPlaneFaultKind;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.ScriptedWorker;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Random event-plane fault schedules over a real pool actor: messages lost, duplicated and reordered, with the
 * faults a plane reports for them (a {@code SequenceGap} before the next message of the publisher, a {@code
 * SequenceRegression} for a replay or a late message, {@code NewPublisher} for a worker restarted with a new
 * publisher id, {@code MessagesDropped} and {@code Disconnected}/{@code Reconnected} windows), and workers
 * answering recovery queries from their true state. No message is delivered reliably at the end: only the faults
 * reveal the lost tail. After quiescence the actor's exact ownership equals a reference producer fed each
 * member's current incarnation's true history, and no source is left suspect.
 *
 * <p>Without {@code PoolRecovery.onPlaneFault} acting on the faults, a lost tail is never recovered and the
 * property fails.
 */
class PoolRecoveryFaultProperties {

  private static final int MEMBERS = 3;

  @Test
  void afterFaultsAndQuiescenceTheExactOwnershipEqualsTheWorkersModel() {
    qt().withExamples(300).forAll(longs().all()).checkAssert(PoolRecoveryFaultProperties::converge);
  }

  /** Not thread-safe: confined to the test thread. The subscription's per-publisher sequence tracking. */
  private static final class Plane {
    final ActorHarness h;
    final Map<Long, Long> expected = new HashMap<>();
    int faults;

    Plane(ActorHarness h) {
      this.h = h;
    }

    void fault(EventPlaneFault f) {
      faults++;
      h.recovery.onPlaneFault(f);
      h.scheduler.runReady();
    }

    /** Delivers message {@code seq} of {@code publisher}, preceded by the sequence fault it reveals. */
    void deliver(long publisher, long seq, RouterEvent e) {
      Long next = expected.get(publisher);
      if (next == null) {
        fault(new EventPlaneFault.NewPublisher(publisher, seq));
      } else if (seq > next) {
        fault(new EventPlaneFault.SequenceGap(publisher, next, seq));
      } else if (seq < next) {
        fault(new EventPlaneFault.SequenceRegression(publisher, next, seq));
      }
      expected.put(publisher, seq + 1);
      h.recovery.onLiveEvent(new EventEnvelope(publisher, seq, 0, EventTopics.KV_EVENTS), e);
      h.scheduler.runReady();
    }
  }

  /** Not thread-safe: confined to the test thread. One member's current incarnation. */
  private static final class Incarnation {
    final TrueWorker worker;
    final long publisher;
    long nextSeq;
    /** Messages lost since the last delivered one (only a fault can reveal them). */
    boolean lostTail;

    Incarnation(MemberId m, long publisher) {
      this.worker = new TrueWorker(m);
      this.publisher = publisher;
    }
  }

  private static void converge(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    ActorHarness h = new ActorHarness();
    Plane plane = new Plane(h);
    Incarnation[] inc = new Incarnation[MEMBERS];
    long nextPublisher = 1000;
    int failPercent = r.nextInt(2) * 10;
    for (int i = 0; i < MEMBERS; i++) {
      inc[i] = new Incarnation(new MemberId(100 + i, i), nextPublisher++);
      register(h, inc[i], r, failPercent);
    }
    h.recovery.updateSources(bindings(inc));
    h.scheduler.runReady();

    record Held(int member, long publisher, long seq, RouterEvent event) {}
    List<Held> held = new ArrayList<>();
    boolean disconnected = false;
    int steps = 20 + r.nextInt(120);
    for (int step = 0; step < steps; step++) {
      int i = r.nextInt(MEMBERS);
      Incarnation c = inc[i];
      int k = r.nextInt(40);
      if (k == 0) {
        // The worker restarts with a new publisher id and an empty cache; discovery re-binds it before or after
        // its first events arrive.
        inc[i] = new Incarnation(c.worker.member, nextPublisher++);
        register(h, inc[i], r, failPercent);
        if (r.nextBoolean()) {
          h.recovery.updateSources(bindings(inc));
          h.scheduler.runReady();
        } else {
          sendOrLose(plane, inc[i], nextEvent(inc[i].worker, r), r, disconnected);
          h.recovery.updateSources(bindings(inc));
          h.scheduler.runReady();
        }
        continue;
      }
      if (k == 1 && !disconnected) {
        plane.fault(new EventPlaneFault.Disconnected("nats://127.0.0.1:4222"));
        disconnected = true;
        continue;
      }
      if (k == 2 && disconnected) {
        plane.fault(new EventPlaneFault.Reconnected("nats://127.0.0.1:4222"));
        disconnected = false;
        for (Incarnation x : inc) {
          x.lostTail = false;
        }
        continue;
      }
      if (k == 3) {
        dropped(plane, inc);
        continue;
      }
      RouterEvent e = nextEvent(c.worker, r);
      long seq = c.nextSeq;
      int fate = r.nextInt(10);
      if (fate < 6 || disconnected) {
        sendOrLose(plane, c, e, seq, disconnected);
      } else if (fate == 6) {
        c.nextSeq++;
        c.lostTail = true;
      } else if (fate == 7) {
        sendOrLose(plane, c, e, seq, false);
        plane.deliver(c.publisher, seq, e);
      } else {
        c.nextSeq++;
        c.lostTail = true;
        held.add(new Held(i, c.publisher, seq, e));
      }
      if (!held.isEmpty() && r.nextInt(4) == 0) {
        Held x = held.remove(r.nextInt(held.size()));
        if (!disconnected) {
          plane.deliver(x.publisher(), x.seq(), x.event());
        }
      }
      if (r.nextInt(3) == 0) {
        h.scheduler.advanceMs(r.nextInt(300));
      }
    }
    // The end: late messages arrive or are lost for good; every loss is revealed by a fault, never by a message.
    if (!disconnected) {
      for (Held x : held) {
        if (r.nextBoolean()) {
          plane.deliver(x.publisher(), x.seq(), x.event());
        }
      }
    }
    if (disconnected) {
      plane.fault(new EventPlaneFault.Reconnected("nats://127.0.0.1:4222"));
    } else {
      dropped(plane, inc);
    }
    h.quiesce();

    CkfProducer ref = CkfProducer.create(ActorHarness.config());
    for (Incarnation c : inc) {
      for (RouterEvent e : c.worker.history) {
        ActorFixture.feed(ref, e);
      }
    }
    PoolStats.Recovery stats = h.recovery.stats();
    assertThat(h.producer.mappingCount()).as("mappings").isEqualTo(ref.mappingCount());
    assertThat(h.producer.residentCount()).as("resident").isEqualTo(ref.residentCount());
    for (Incarnation c : inc) {
      for (RouterEvent e : c.worker.history) {
        if (e.data() instanceof KvEventData.Stored s) {
          long t = s.blocks().get(0).tokensHash();
          assertThat(h.producer.contains(t)).as("contains %s", t).isEqualTo(ref.contains(t));
        }
      }
    }
    long counted = 0;
    for (EventPlaneFaultKind kind : EventPlaneFaultKind.values()) {
      counted += stats.planeFaults(kind);
    }
    assertThat(counted).as("every fault counted by kind").isEqualTo(plane.faults);
    assertThat(stats.suspectSources()).as("suspect sources after the reconnect's recovery").isZero();
    assertThat(stats.exhausted()).as("no recovery abandoned").isZero();
    assertThat(h.faults).isEmpty();
  }

  private static void sendOrLose(Plane plane, Incarnation c, RouterEvent e, SplittableRandom r, boolean disconnected) {
    sendOrLose(plane, c, e, c.nextSeq, disconnected);
  }

  /** Sends the next message of {@code c}: lost while disconnected, delivered otherwise. */
  private static void sendOrLose(Plane plane, Incarnation c, RouterEvent e, long seq, boolean disconnected) {
    c.nextSeq = seq + 1;
    if (disconnected) {
      c.lostTail = true;
      return;
    }
    c.lostTail = false;
    plane.deliver(c.publisher, seq, e);
  }

  /** A slow-consumer drop: the plane counts the messages it discarded (their publishers unknown). */
  private static void dropped(Plane plane, Incarnation[] inc) {
    long lost = 0;
    for (Incarnation x : inc) {
      if (x.lostTail) {
        lost++;
        x.lostTail = false;
      }
    }
    plane.fault(new EventPlaneFault.MessagesDropped(Math.max(1, lost), "pending limits"));
  }

  private static void register(ActorHarness h, Incarnation c, SplittableRandom r, int failPercent) {
    TrueWorker w = c.worker;
    h.plane.register(w.member.workerId(), new ScriptedWorker().otherwiseAnswer(q -> r.nextInt(100) < failPercent
        ? new WorkerKvQueryResponse.Error("flaky") : w.answer(q)));
  }

  private static List<SourceBinding> bindings(Incarnation[] inc) {
    List<SourceBinding> out = new ArrayList<>();
    for (Incarnation c : inc) {
      out.add(RecoveryFixture.recoverable(c.worker.member, c.publisher));
    }
    return out;
  }

  private static RouterEvent nextEvent(TrueWorker w, SplittableRandom r) {
    int k = r.nextInt(20);
    if (k == 0) {
      return w.publish(KvEventData.Cleared.INSTANCE);
    }
    if (k < 6) {
      return w.publish(KvEventData.Removed.of(1 + r.nextInt(16)));
    }
    return w.storeRoot(1 + r.nextInt(16));
  }
}
