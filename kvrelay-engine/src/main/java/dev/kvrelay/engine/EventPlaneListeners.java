package dev.kvrelay.engine;


import static dev.kvrelay.engine.RelayHost.LOG;

import dev.kvrelay.engine.stats.RelayEngineStats.EventPlaneFaultKind;
import dev.kvrelay.spi.eventplane.ActiveLoad;
import dev.kvrelay.spi.eventplane.EventDecodeException;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventListener;
import dev.kvrelay.spi.eventplane.EventPlaneFault;
import dev.kvrelay.spi.eventplane.EventTopics;
import dev.kvrelay.spi.eventplane.RouterEvent;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Thread-safe (its counters are adders, its one flag atomic): makes the event-plane listeners of each pool
 * generation's two subscriptions: kv-events go straight into the pool's recovery, kv_metrics hop onto the control
 * task into {@link LoadRouting}. Faults of both are counted by kind and logged once per plane-wide change.
 */
final class EventPlaneListeners {
  private final HostCounters counters;
  /** Runs a task on the control thread (dropped after close). */
  private final Executor control;
  private final LoadRouting load;
  /** True between a plane Disconnected and the next Reconnected: connection loss and return are logged once. */
  private final AtomicBoolean planeDisconnected = new AtomicBoolean();

  EventPlaneListeners(HostCounters counters, Executor control, LoadRouting load) {
    this.counters = counters;
    this.control = control;
    this.load = load;
  }

  /** The listener of {@code runtime}'s kv-events subscription. */
  EventListener kvEvents(PoolRuntime runtime) {
    return new KvEventsListener(runtime);
  }

  /** The listener of {@code runtime}'s kv_metrics subscription. */
  EventListener kvMetrics(PoolRuntime runtime) {
    return new LoadListener(runtime);
  }

  /** Confined to the event plane's delivery thread of one subscription: live kv-events into recovery. */
  private final class KvEventsListener implements EventListener {
    private final PoolRuntime runtime;

    KvEventsListener(PoolRuntime runtime) {
      this.runtime = runtime;
    }

    @Override
    public void onKvEvent(EventEnvelope envelope, RouterEvent event) {
      runtime.recovery.onLiveEvent(envelope, event);
    }

    @Override
    public void onLoad(EventEnvelope envelope, ActiveLoad load) {
      counters.unexpectedMessages.increment();
    }

    @Override
    public void onDecodeError(EventDecodeException error, OptionalLong publisherId) {
      counters.eventDecodeErrors.increment();
      LOG.debug("kv-events decode error: {}", error.getMessage());
    }

    /**
     * Counts and logs the fault, then hands it to the pool's recovery (runtime-inputs §6.3): sequence faults and
     * drops recover the sources concerned, a disconnect marks them suspect, a reconnect recovers all of them.
     */
    @Override
    public void onFault(EventPlaneFault fault) {
      countAndLog(fault, runtime, true);
      runtime.recovery.onPlaneFault(fault);
    }
  }

  /** Confined to the event plane's delivery thread of one subscription: kv_metrics onto the control task. */
  private final class LoadListener implements EventListener {
    private final PoolRuntime runtime;

    LoadListener(PoolRuntime runtime) {
      this.runtime = runtime;
    }

    @Override
    public void onKvEvent(EventEnvelope envelope, RouterEvent event) {
      counters.unexpectedMessages.increment();
    }

    @Override
    public void onLoad(EventEnvelope envelope, ActiveLoad activeLoad) {
      control.execute(() -> load.observe(runtime, envelope, activeLoad));
    }

    @Override
    public void onDecodeError(EventDecodeException error, OptionalLong publisherId) {
      counters.eventDecodeErrors.increment();
    }

    @Override
    public void onFault(EventPlaneFault fault) {
      countAndLog(fault, runtime, false);
    }
  }

  /**
   * One count and one log line per fault (any delivery thread). Connection loss and return concern the whole
   * plane and reach every subscription: the first Disconnected after a connected state logs at WARN, the first
   * Reconnected after it at INFO, the other subscriptions' copies at DEBUG. Message losses log at WARN on the
   * kv-events subscription (DEBUG on kv_metrics: loads are advisory and the next report replaces them), a new
   * publisher at INFO.
   */
  private void countAndLog(EventPlaneFault fault, PoolRuntime runtime, boolean kvEvents) {
    EventPlaneFaultKind kind = EventPlaneFaultKind.of(fault);
    counters.planeFault(kind);
    String topic = kvEvents ? EventTopics.KV_EVENTS : EventTopics.KV_METRICS;
    switch (kind) {
      case DISCONNECTED -> {
        if (planeDisconnected.compareAndSet(false, true)) {
          LOG.warn("event plane connection lost ({}); sources are suspect until it returns", fault.describe());
        } else {
          LOG.debug("pool {} {}: {}", runtime.poolId(), topic, fault.describe());
        }
      }
      case RECONNECTED -> {
        if (planeDisconnected.compareAndSet(true, false)) {
          LOG.info("event plane connection back ({}); recovering every source", fault.describe());
        } else {
          LOG.debug("pool {} {}: {}", runtime.poolId(), topic, fault.describe());
        }
      }
      case NEW_PUBLISHER -> LOG.info("pool {} {}: {}", runtime.poolId(), topic, fault.describe());
      default -> {
        if (kvEvents) {
          LOG.warn("pool {} {}: {}; recovering", runtime.poolId(), topic, fault.describe());
        } else {
          LOG.debug("pool {} {}: {}", runtime.poolId(), topic, fault.describe());
        }
      }
    }
  }
}
