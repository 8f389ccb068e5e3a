package dev.kvrelay.engine.stream;

import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.RelayEngineConfig;
import java.util.Objects;

/**
 * Immutable and thread-safe (its limits are thread-safe): the five independent per-stream-type admission
 * bounds of the WAN service (wan-grpc.md §2.1 step 4, §3.2). The names are the exact words of the refusal
 * messages, e.g. "Relay total pool stream limit 64 reached".
 *
 * @param catalog WatchKvPoolCatalog streams ({@code MAX_CATALOG_SUBSCRIBERS})
 * @param poolStreams SubscribeKvPool streams in total ({@code MAX_POOL_STREAMS_TOTAL})
 * @param readiness SubscribeServingReadiness streams ({@code MAX_READINESS_SUBSCRIBERS})
 * @param load SubscribeKvPoolLoad streams ({@code MAX_LOAD_SUBSCRIBERS})
 * @param servingLoad SubscribeServingLoad streams ({@code MAX_SERVING_LOAD_SUBSCRIBERS})
 */
public record RelayAdmission(
    AdmissionLimit catalog,
    AdmissionLimit poolStreams,
    AdmissionLimit readiness,
    AdmissionLimit load,
    AdmissionLimit servingLoad) {

  /** The catalog stream type's name in refusal messages. */
  public static final String CATALOG_STREAM = "catalog stream";
  /** The pool stream type's name in refusal messages. */
  public static final String POOL_STREAM = "total pool stream";
  /** The readiness stream type's name in refusal messages. */
  public static final String READINESS_STREAM = "readiness stream";
  /** The pool-load stream type's name in refusal messages. */
  public static final String LOAD_STREAM = "load stream";
  /** The serving-load stream type's name in refusal messages. */
  public static final String SERVING_LOAD_STREAM = "serving-load stream";

  /** Requires every limit. */
  public RelayAdmission {
    Objects.requireNonNull(catalog, "catalog");
    Objects.requireNonNull(poolStreams, "poolStreams");
    Objects.requireNonNull(readiness, "readiness");
    Objects.requireNonNull(load, "load");
    Objects.requireNonNull(servingLoad, "servingLoad");
  }

  /** Fresh limits (nothing in use) sized by the configuration's admission knobs. */
  public static RelayAdmission from(RelayEngineConfig c) {
    return new RelayAdmission(
        new AdmissionLimit(CATALOG_STREAM, bound(c, RelayConfigKey.MAX_CATALOG_SUBSCRIBERS)),
        new AdmissionLimit(POOL_STREAM, bound(c, RelayConfigKey.MAX_POOL_STREAMS_TOTAL)),
        new AdmissionLimit(READINESS_STREAM, bound(c, RelayConfigKey.MAX_READINESS_SUBSCRIBERS)),
        new AdmissionLimit(LOAD_STREAM, bound(c, RelayConfigKey.MAX_LOAD_SUBSCRIBERS)),
        new AdmissionLimit(SERVING_LOAD_STREAM, bound(c, RelayConfigKey.MAX_SERVING_LOAD_SUBSCRIBERS)));
  }

  /** The knob's value (an unsigned long the config bounds to 1..Integer.MAX_VALUE; clamped defensively). */
  private static int bound(RelayEngineConfig c, RelayConfigKey key) {
    long v = c.value(key);
    return Long.compareUnsigned(v, Integer.MAX_VALUE) > 0 ? Integer.MAX_VALUE : (int) Math.max(1L, v);
  }
}
