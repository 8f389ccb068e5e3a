package dev.kvrelay.ckf.producer;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.CkfConfigException;

/** Test helpers: producers of a given size and Stored batches. */
final class Fixtures {
  private Fixtures() {}

  static CkfProducer producer(int buckets) {
    return producer(buckets, 1);
  }

  static CkfProducer producer(int buckets, int publishEveryN) {
    try {
      return CkfProducer.create(CkfProducerConfig.of(CkfFormat.withDefaultSeed(buckets), 500, publishEveryN));
    } catch (CkfConfigException e) {
      throw new AssertionError(e);
    }
  }

  /** A Stored batch without parent; {@code pairs} = external id, tokens hash, external id, tokens hash… */
  static StoredBatch stored(long worker, int rank, long... pairs) {
    StoredBatch b = new StoredBatch(2).reset(worker, rank);
    for (int i = 0; i < pairs.length; i += 2) {
      b.addBlock(pairs[i], pairs[i + 1]);
    }
    return b;
  }

  /** A Stored batch whose parent is the external id {@code parent}. */
  static StoredBatch storedAfter(long worker, int rank, long parent, long... pairs) {
    return stored(worker, rank, pairs).parent(parent);
  }
}
