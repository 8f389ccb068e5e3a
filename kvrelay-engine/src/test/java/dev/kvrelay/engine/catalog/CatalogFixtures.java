package dev.kvrelay.engine.catalog;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DcId;
import dev.kvrelay.api.DigestIdentity;
import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.IdentitySource;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.DescriptorException;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.Arrays;
import java.util.List;

final class CatalogFixtures {
  static final long INCARNATION = 0x1234_5678_9ABC_DEFL;
  static final RelayIdentity RELAY = new RelayIdentity(77L, INCARNATION);
  static final DynamoEndpointId ENDPOINT = new DynamoEndpointId("prod", "backend", "generate");
  static final KvQuerySemantics SEMANTICS = new KvQuerySemantics(16, KvQueryHashFormat.DYNAMO_STANDARD_V1);

  private CatalogFixtures() {}

  static DigestIdentity digest(int firstByte, IdentitySource source) {
    byte[] bytes = new byte[16];
    Arrays.fill(bytes, (byte) 0x11);
    bytes[0] = (byte) firstByte;
    return new DigestIdentity(bytes, source);
  }

  /** Pool ids whose catalog order is the order of {@code key} (0..255): the first cache-digest byte, unsigned. */
  static KvPoolId pool(int key) {
    return new KvPoolId(
        new IndexerDomainId(digest(key, IdentitySource.EXPLICIT), digest(0, IdentitySource.EXPLICIT)), DcId.of(3));
  }

  static ProducerIdentity producer(KvPoolId pool, long generation) {
    return new ProducerIdentity(pool, INCARNATION, generation, CkfFormat.withDefaultSeed(1024));
  }

  static ModelRegistration base(String model, String... aliases) {
    return new ModelRegistration(model, new ModelTarget.Base(model), List.of(aliases));
  }

  static KvPoolDescriptor descriptor(int key, long generation) {
    return descriptor(producer(pool(key), generation));
  }

  static KvPoolDescriptor descriptor(ProducerIdentity producer) {
    try {
      return KvPoolDescriptor.of(producer, ENDPOINT, List.of(base("llama", "llama-alias")), SEMANTICS,
          List.of(WorkerRole.DECODE));
    } catch (DescriptorException e) {
      throw new AssertionError(e);
    }
  }
}
