package dev.kvrelay.ckf.consumer;

import dev.kvrelay.api.CkfFormat;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Immutable and thread-safe (if {@code P} is): the consumer's lane layout — its instance id, the one CKF
 * format every lane shares, and for each of the 16 lanes an optional {@link CkfLaneOwner}. Lane dc ids are
 * distinct.
 *
 * @param <P> the engine's pool identity type, compared with {@code equals}
 */
public final class GlobalCkfManifest<P> {
  private final long consumerInstance;
  private final CkfFormat format;
  private final @Nullable CkfLaneOwner<P>[] owners;
  private final int configuredLanes;

  private GlobalCkfManifest(
      long consumerInstance, CkfFormat format, @Nullable CkfLaneOwner<P>[] owners, int configuredLanes) {
    this.consumerInstance = consumerInstance;
    this.format = format;
    this.owners = owners;
    this.configuredLanes = configuredLanes;
  }

  /**
   * A manifest whose lane {@code i} is {@code lanes.get(i)} (null = unbound); lanes beyond the list are
   * unbound.
   *
   * @throws GlobalCkfBuildException {@code TOO_MANY_LANES} for more than 16 entries,
   *     {@code DUPLICATE_DC_LANE} if two lanes share a dc id, {@code NO_CONFIGURED_LANES} if none is bound
   */
  public static <P> GlobalCkfManifest<P> of(
      long consumerInstance, CkfFormat format, List<? extends @Nullable CkfLaneOwner<P>> lanes)
      throws GlobalCkfBuildException {
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(lanes, "lanes");
    if (lanes.size() > TransposedCkfTable.LANES) {
      throw new GlobalCkfBuildException(GlobalCkfBuildException.Reason.TOO_MANY_LANES,
          "at most 16 lanes, got " + lanes.size());
    }
    @SuppressWarnings("unchecked")
    @Nullable CkfLaneOwner<P>[] owners = (@Nullable CkfLaneOwner<P>[]) new CkfLaneOwner<?>[TransposedCkfTable.LANES];
    int configured = 0;
    for (int lane = 0; lane < lanes.size(); lane++) {
      CkfLaneOwner<P> owner = lanes.get(lane);
      if (owner == null) {
        continue;
      }
      for (int other = 0; other < lane; other++) {
        CkfLaneOwner<P> earlier = owners[other];
        if (earlier != null && earlier.dcId() == owner.dcId()) {
          throw new GlobalCkfBuildException(GlobalCkfBuildException.Reason.DUPLICATE_DC_LANE,
              "lanes " + other + " and " + lane + " share dc id " + String.format("%016x", owner.dcId()));
        }
      }
      owners[lane] = owner;
      configured |= 1 << lane;
    }
    if (configured == 0) {
      throw new GlobalCkfBuildException(GlobalCkfBuildException.Reason.NO_CONFIGURED_LANES,
          "the manifest must bind at least one lane");
    }
    return new GlobalCkfManifest<>(consumerInstance, format, owners, configured);
  }

  /** The consumer instance id leases must carry (unsigned 64-bit). */
  public long consumerInstance() {
    return consumerInstance;
  }

  /** The CKF format shared by all lanes. */
  public CkfFormat format() {
    return format;
  }

  /** Mask of the bound lanes. */
  public int configuredLanes() {
    return configuredLanes;
  }

  /** The owner of {@code lane}, or null if the lane is unbound or outside {@code 0..16}. */
  public @Nullable CkfLaneOwner<P> owner(int lane) {
    return lane >= 0 && lane < owners.length ? owners[lane] : null;
  }

  /** The lane bound to {@code dcId}, or -1. */
  public int laneOfDc(long dcId) {
    for (int lane = 0; lane < owners.length; lane++) {
      CkfLaneOwner<P> owner = owners[lane];
      if (owner != null && owner.dcId() == dcId) {
        return lane;
      }
    }
    return -1;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("GlobalCkfManifest[consumer=")
        .append(Long.toUnsignedString(consumerInstance)).append(", ").append(format).append(", lanes={");
    String sep = "";
    for (int lane = 0; lane < owners.length; lane++) {
      if (owners[lane] != null) {
        sb.append(sep).append(lane).append('=').append(owners[lane]);
        sep = ", ";
      }
    }
    return sb.append("}]").toString();
  }
}
