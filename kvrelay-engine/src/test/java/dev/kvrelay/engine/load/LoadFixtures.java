package dev.kvrelay.engine.load;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DigestIdentity;
import dev.kvrelay.api.IdentitySource;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.spi.discovery.RuntimeConfig;
import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.SchedulerLoadScope;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/** Immutable and thread-safe: test builders for load inputs. */
final class LoadFixtures {
  private LoadFixtures() {}

  static RuntimeConfig config(long start, int size, OptionalLong totalKvBlocks) {
    return new RuntimeConfig(start, size, totalKvBlocks, OptionalLong.empty(), OptionalLong.empty(), true, null,
        null, null, false, List.of());
  }

  static RuntimeConfig config(long start, int size, long totalKvBlocks) {
    return config(start, size, OptionalLong.of(totalKvBlocks));
  }

  static EventEnvelope env(long publisher, long sequence, long publishedAtMs) {
    return new EventEnvelope(publisher, sequence, publishedAtMs, EventTopics.KV_METRICS);
  }

  static ActiveLoad kv(long worker, int rank, long kvUsed) {
    return new ActiveLoad(worker, rank, OptionalLong.empty(), OptionalLong.empty(), null, OptionalLong.of(kvUsed));
  }

  static ActiveLoad advisory(long worker, int rank, long decode) {
    return new ActiveLoad(worker, rank, OptionalLong.of(decode), OptionalLong.empty(), null, OptionalLong.empty());
  }

  static ActiveLoad sched(long worker, int rank, SchedulerLoadScope scope, long decode, long prefill) {
    return new ActiveLoad(worker, rank, OptionalLong.of(decode), OptionalLong.of(prefill), scope,
        OptionalLong.empty());
  }

  static ProducerIdentity producer(int domainByte, long dc) {
    byte[] a = new byte[16];
    Arrays.fill(a, (byte) domainByte);
    byte[] b = new byte[16];
    Arrays.fill(b, (byte) 2);
    KvPoolId pool = new KvPoolId(new IndexerDomainId(new DigestIdentity(a, IdentitySource.EXPLICIT),
        new DigestIdentity(b, IdentitySource.EXPLICIT)), DcId.of(dc));
    return new ProducerIdentity(pool, 7, 11, CkfFormat.withDefaultSeed(1024));
  }
}
