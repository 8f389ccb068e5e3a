package dev.kvrelay.engine.hub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DigestIdentity;
import dev.kvrelay.api.IdentitySource;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.ckf.producer.BarrierSnapshot;
import dev.kvrelay.ckf.producer.CkfDelta;
import dev.kvrelay.ckf.producer.CkfProducer;
import dev.kvrelay.ckf.producer.CkfProducerConfig;
import dev.kvrelay.ckf.producer.CkfPublication;
import dev.kvrelay.ckf.producer.CkfSnapshot;
import dev.kvrelay.ckf.producer.StoredBatch;
import dev.kvrelay.engine.WireReplica;
import dev.kvrelay.engine.actor.ManualScheduler;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Not thread-safe: registry + pools driven by real {@link CkfProducer}s on the test thread. */
final class HubFixture {

  // ------------------------------------------------------------------ stream helpers shared by the hub tests

  /** Subscribes {@code id} to {@code p}; the hub answers at once. */
  static RelayStream<PoolFrame> open(HubFixture fx, HubFixture.Pool p, String id) throws Exception {
    CompletableFuture<RelayStream<PoolFrame>> f = fx.registry.subscribe(p.identity.poolId(), p.identity, id);
    assertThat(f).isDone();
    return f.get();
  }

  /** The reason of a subscription refused at once. */
  static RelayErrorReason refusal(CompletableFuture<RelayStream<PoolFrame>> f) {
    assertThat(f).isCompletedExceptionally();
    try {
      f.get();
      throw new AssertionError("not refused");
    } catch (ExecutionException e) {
      return ((RelayException) e.getCause()).reason();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /** The reason the stream's next poll ends with. */
  static RelayErrorReason pollError(RelayStream<PoolFrame> s) {
    try {
      PoolFrame f = s.poll();
      throw new AssertionError("expected a termination, got " + f);
    } catch (RelayException e) {
      return e.reason();
    }
  }

  /** Polls everything available now into the replica; returns how many frames. */
  static int drain(RelayStream<PoolFrame> s, WireReplica r) throws Exception {
    int n = 0;
    PoolFrame f;
    while ((f = s.poll()) != null) {
      r.apply(f);
      n++;
    }
    return n;
  }

  static final RelayIdentity RELAY = new RelayIdentity(0x1111L, 0x2222L);
  static final CkfFormat FORMAT = CkfFormat.of(0x5EEDL, 256);

  record Fault(KvPoolId pool, RelayErrorReason reason, String message) {}

  /** One pool generation: a real producer behind a {@link HubSource} that mimics the pool actor. */
  final class Pool implements HubSource {
    final ProducerIdentity identity;
    final CkfProducer producer;
    HubSlot slot;
    final List<Long> subscribedLeases = new ArrayList<>();
    final List<Long> retiredLeases = new ArrayList<>();
    boolean deferSubscribe;
    /** One-shot: deltas the "actor" publishes on the new lease before the barrier reply is completed. */
    int earlyDeltas;
    final List<Runnable> deferred = new ArrayList<>();
    private long nextHash;

    Pool(long dc, byte tag, CkfFormat format) {
      this(producer(dc, tag, format));
    }

    /** A generation with {@code identity} (attaching it replaces whatever slot holds its pool). */
    Pool(ProducerIdentity identity) {
      this.identity = identity;
      try {
        producer = CkfProducer.create(CkfProducerConfig.of(identity.ckfFormat(), 500, 1_000_000));
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      nextHash = identity.poolId().dcId().value() * 1_000_003L;
      slot = registry.attach(identity.poolId(), identity, identity.ckfFormat(), this);
    }

    @Override
    public CompletableFuture<BarrierSnapshot> subscribe(long lease) {
      synchronized (this) {
        subscribedLeases.add(lease);
      }
      CompletableFuture<BarrierSnapshot> f = new CompletableFuture<>();
      Runnable r = () -> {
        try {
          BarrierSnapshot b;
          synchronized (this) {
            b = producer.snapshotAfterBarrier(lease);
          }
          if (b.tail() != null) {
            slot.offer(b.tail());
          }
          int early = earlyDeltas;
          earlyDeltas = 0;
          for (int i = 0; i < early; i++) {
            store(3, 1);
            publish();
          }
          f.complete(b);
        } catch (Exception e) {
          f.completeExceptionally(e);
        }
      };
      if (deferSubscribe) {
        deferred.add(r);
      } else {
        r.run();
      }
      return f;
    }

    void runDeferred() {
      List<Runnable> copy = new ArrayList<>(deferred);
      deferred.clear();
      copy.forEach(Runnable::run);
    }

    @Override
    public synchronized void retireLease(long lease) {
      retiredLeases.add(lease);
      if (producer.lease() == lease) {
        producer.retireLease();
      }
    }

    /** Stores {@code n} fresh root blocks for worker {@code w}. */
    void store(long w, int n) {
      StoredBatch b = new StoredBatch().reset(w, 0);
      for (int i = 0; i < n; i++) {
        long h = nextHash++;
        b.addBlock(h, h * 0x9E3779B97F4A7C15L);
      }
      producer.stored(b);
    }

    /** Drains the producer and offers the publication like the actor does; returns it. */
    CkfPublication publish() {
      CkfPublication p = producer.drain();
      if (p instanceof CkfDelta || p instanceof CkfSnapshot) {
        slot.offer(p);
      }
      return p;
    }

    long[] words() {
      return producer.copyWords();
    }

    void reattach() {
      slot = registry.attach(identity.poolId(), identity, identity.ckfFormat(), this);
    }
  }

  final ManualScheduler timers = new ManualScheduler();
  final List<Fault> faults = new ArrayList<>();
  long micros = 1_700_000_000_000_000L;
  final HubRegistry registry;

  HubFixture(HubSettings settings) {
    registry = new HubRegistry(settings, RELAY, timers, timers::now, () -> micros++,
        (pool, producer, reason, message) -> faults.add(new Fault(pool, reason, message)));
  }

  HubFixture() {
    this(settings(16, 16_777_216L, 2));
  }

  static HubSettings settings(int capacity, long bytes, int maxHubs) {
    return new HubSettings(capacity, bytes, 10_000, 60_000, 64, maxHubs, 2);
  }

  Pool pool(long dc) {
    return new Pool(dc, (byte) dc, FORMAT);
  }

  Pool pool(long dc, CkfFormat format) {
    return new Pool(dc, (byte) dc, format);
  }

  static ProducerIdentity producer(long dc, byte tag, CkfFormat format) {
    byte[] a = new byte[16];
    byte[] b = new byte[16];
    Arrays.fill(a, tag);
    Arrays.fill(b, (byte) (tag + 100));
    KvPoolId pool = new KvPoolId(new IndexerDomainId(new DigestIdentity(a, IdentitySource.EXPLICIT),
        new DigestIdentity(b, IdentitySource.EXPLICIT)), DcId.of(dc));
    return new ProducerIdentity(pool, 7, 11, format);
  }

  static void assertSameWords(long[] actual, long[] expected) {
    assertThat(actual).as("replica words").isEqualTo(expected);
  }
}
