package dev.kvrelay.engine.load;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.KvQueryHashFormat;
import dev.kvrelay.api.KvQuerySemantics;
import dev.kvrelay.api.ModelRegistration;
import dev.kvrelay.api.ModelTarget;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.WorkerRole;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.spi.discovery.RuntimeConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/** Immutable and thread-safe: test builders for serving-load inputs. */
final class ServingLoadFixtures {
  private ServingLoadFixtures() {}

  static KvPoolDescriptor descriptor(ProducerIdentity producer, String namespace, List<String> models) {
    List<ModelRegistration> registrations = new ArrayList<>();
    for (String model : models) {
      registrations.add(new ModelRegistration(model, new ModelTarget.Base(model), List.of()));
    }
    return new KvPoolDescriptor(producer, new DynamoEndpointId(namespace, "backend", "generate"), registrations,
        new KvQuerySemantics(16, KvQueryHashFormat.DYNAMO_STANDARD_V1), List.of(WorkerRole.AGGREGATED));
  }

  static KvPoolDescriptor descriptor(int domainByte, long dc, String namespace, String... models) {
    return descriptor(LoadFixtures.producer(domainByte, dc), namespace, List.of(models));
  }

  /** A worker config with {@code max_num_seqs} (empty = not declared) and {@code data_parallel_size}. */
  static RuntimeConfig worker(OptionalLong maxNumSeqs, int dpSize) {
    return new RuntimeConfig(0, dpSize, OptionalLong.of(100), maxNumSeqs, OptionalLong.empty(), true, null, null,
        null, false, List.of());
  }

  static ServingPoolInput input(KvPoolDescriptor descriptor, Map<Long, RuntimeConfig> configs) {
    return new ServingPoolInput(descriptor, configs, PoolLoadSnapshot.EMPTY);
  }

  static ServingPoolInput input(KvPoolDescriptor descriptor) {
    return input(descriptor, Map.of());
  }

  static final OptionalLong NONE = OptionalLong.empty();

  static OptionalLong some(long v) {
    return OptionalLong.of(v);
  }
}
