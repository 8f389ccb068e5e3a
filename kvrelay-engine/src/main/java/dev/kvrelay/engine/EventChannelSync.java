package dev.kvrelay.engine;

import static dev.kvrelay.engine.RelayHost.LOG;

import dev.kvrelay.api.EventScope;
import dev.kvrelay.spi.discovery.ChannelTransport;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.EventChannelRecord;
import dev.kvrelay.spi.eventplane.ChannelLocator;
import dev.kvrelay.spi.eventplane.EventPlane;
import dev.kvrelay.spi.eventplane.EventPlaneException;
import dev.kvrelay.spi.eventplane.EventSubscription;
import dev.kvrelay.spi.eventplane.EventTopics;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Confined to the engine's control task: on planes whose subscriptions must connect to each publisher (ZMQ direct
 * or broker mode), keeps every pool generation's kv-events and kv_metrics subscriptions connected to exactly the
 * EventChannels discovery advertises for their scope and topic.
 */
final class EventChannelSync {
  /** Component name of ZMQ broker EventChannels (runtime-inputs §5.1; the broker registers topic {@code broker}). */
  static final String ZMQ_BROKER_COMPONENT = "zmq_broker";

  private final EventPlane plane;
  private final HostCounters counters;
  /** Channels the plane refused as unsupported (a broker channel in direct mode): counted and logged once. */
  private final Set<ChannelLocator> unsupportedChannels = new HashSet<>();

  EventChannelSync(EventPlane plane, HostCounters counters) {
    this.plane = plane;
    this.counters = counters;
  }

  /**
   * Connects {@code runtime}'s subscriptions to the channels of {@code known} (what discovery says) for their scope
   * and topic, and disconnects the ones that disappeared. A channel the plane refuses is counted and logged; the
   * others are unaffected. Does nothing on planes that do not connect to channels.
   */
  void sync(PoolRuntime runtime, Collection<DiscoveryRecord> known) {
    if (!plane.connectsToChannels()) {
      return;
    }
    Set<ChannelLocator> events = new HashSet<>();
    Set<ChannelLocator> metrics = new HashSet<>();
    EventScope metricsScope = new EventScope.Endpoint(runtime.descriptor.servingEndpoint());
    for (DiscoveryRecord r : known) {
      if (r instanceof EventChannelRecord ch) {
        if (isBroker(ch)) {
          // Broker mode (DYN_ZMQ_BROKER_ENABLED): every subscription of the broker's namespace reads through it.
          if (ch.key().scope().namespace().equals(runtime.kvEventsScope().namespace())) {
            events.add(locator(ch));
          }
          if (ch.key().scope().namespace().equals(metricsScope.namespace())) {
            metrics.add(locator(ch));
          }
        } else if (ch.key().scope().equals(runtime.kvEventsScope())
            && EventTopics.KV_EVENTS.equals(ch.key().topic())) {
          events.add(locator(ch));
        } else if (ch.key().scope().equals(metricsScope) && EventTopics.KV_METRICS.equals(ch.key().topic())) {
          metrics.add(locator(ch));
        }
      }
    }
    events.removeAll(unsupportedChannels);
    metrics.removeAll(unsupportedChannels);
    connect(runtime.kvEvents, runtime.kvEventChannels, events);
    connect(runtime.kvMetrics, runtime.kvMetricChannels, metrics);
  }

  /**
   * A ZMQ broker's EventChannel (runtime-inputs §5.1, plugins-wire: brokers are EventChannels of component {@code
   * zmq_broker} in the namespace, any topic; upstream's broker registers topic {@code broker}) with a {@code
   * ZmqBroker} transport.
   */
  static boolean isBroker(EventChannelRecord ch) {
    return ch.transport() instanceof ChannelTransport.ZmqBroker
        && ch.key().scope() instanceof EventScope.Component c
        && ZMQ_BROKER_COMPONENT.equals(c.component());
  }

  /** The event-plane locator of a discovery EventChannel. */
  static ChannelLocator locator(EventChannelRecord ch) {
    ChannelTransport t = ch.transport();
    if (t instanceof ChannelTransport.Zmq z) {
      return new ChannelLocator.Zmq(ch.key().instanceId(), z.endpoint());
    } else if (t instanceof ChannelTransport.ZmqBroker b) {
      return new ChannelLocator.ZmqBroker(b.xsubEndpoints(), b.xpubEndpoints());
    }
    return new ChannelLocator.Nats(((ChannelTransport.Nats) t).subjectPrefix());
  }

  private void connect(@Nullable EventSubscription subscription, Set<ChannelLocator> connected,
      Set<ChannelLocator> desired) {
    if (subscription == null) {
      return;
    }
    for (Iterator<ChannelLocator> it = connected.iterator(); it.hasNext(); ) {
      ChannelLocator c = it.next();
      if (!desired.contains(c)) {
        subscription.disconnect(c);
        it.remove();
      }
    }
    for (ChannelLocator c : desired) {
      if (!connected.contains(c)) {
        try {
          subscription.connect(c);
          connected.add(c);
        } catch (EventPlaneException e) {
          counters.channelErrors.increment();
          if (e.kind() == EventPlaneException.Kind.UNSUPPORTED_CHANNEL) {
            // Not retried on later reconciles (the plane's mode does not change): one count, one line.
            unsupportedChannels.add(c);
          }
          LOG.warn("event channel {} refused: {}", c, e.getMessage());
        }
      }
    }
  }
}
