package dev.kvrelay.engine.stream;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Thread-safe: the admission bound of one stream type (wan-grpc.md §2.1 step 4, §3.2), a counting semaphore
 * that is only ever tried, never waited on. A refusal is a {@link RelayException} with reason {@link
 * RelayErrorReason#RESOURCE_LIMIT} and the message "Relay {name} limit {N} reached"; every refusal is
 * counted in {@link #refused()}.
 */
public final class AdmissionLimit {
  private final String name;
  private final int limit;
  private final AtomicInteger inUse = new AtomicInteger();
  private final AtomicLong refused = new AtomicLong();

  /**
   * @param name the stream type as the refusal message names it, e.g. {@code "catalog stream"}
   * @param limit the number of permits, at least 1
   * @throws IllegalArgumentException if {@code limit < 1}
   */
  public AdmissionLimit(String name, int limit) {
    this.name = Objects.requireNonNull(name, "name");
    if (limit < 1) {
      throw new IllegalArgumentException("admission limit for " + name + " must be at least 1, got " + limit);
    }
    this.limit = limit;
  }

  /**
   * Takes one permit if one is free, at once.
   *
   * @throws RelayException with {@link RelayErrorReason#RESOURCE_LIMIT} when all {@link #limit()} permits are
   *     in use (counted in {@link #refused()})
   */
  public AdmissionPermit acquire() throws RelayException {
    for (;;) {
      int n = inUse.get();
      if (n >= limit) {
        refused.incrementAndGet();
        throw new RelayException(RelayErrorReason.RESOURCE_LIMIT, "Relay " + name + " limit " + limit + " reached");
      }
      if (inUse.compareAndSet(n, n + 1)) {
        return new AdmissionPermit(this);
      }
    }
  }

  void release() {
    inUse.decrementAndGet();
  }

  /** The stream type named in the refusal message. */
  public String name() {
    return name;
  }

  /** Permits currently held. */
  public int inUse() {
    return inUse.get();
  }

  /** The configured bound. */
  public int limit() {
    return limit;
  }

  /** Acquisitions refused so far. */
  public long refused() {
    return refused.get();
  }

  @Override
  public String toString() {
    return "AdmissionLimit[" + name + ", " + inUse.get() + "/" + limit + ", refused=" + refused.get() + "]";
  }
}
