package dev.kvrelay.eventplane.zmq;

import dev.kvrelay.spi.eventplane.EventPlaneFault;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Not thread-safe: confined to one subscription's receive thread. The connection state of each endpoint the
 * subscription's SUB socket is connected to, read from jeromq's socket monitor (a PAIR socket on an inproc
 * address that the SUB socket reports its connection events to), and turned into {@link EventPlaneFault}s: an
 * endpoint whose ZMTP handshake had completed and whose connection is then lost is one
 * {@link EventPlaneFault.Disconnected}; its next completed handshake is one {@link EventPlaneFault.Reconnected}.
 *
 * <p>An endpoint counts as up only once its handshake completed ({@code EVENT_HANDSHAKE_PROTOCOL}), not when the
 * TCP connection opened: a connection dropped by the handshake deadline before it was ever up, and the reconnect
 * attempts while a publisher is away ({@code CONNECT_RETRIED}, {@code CLOSED}), change nothing, so a publisher
 * going away and returning is reported exactly once each. An endpoint's first handshake is not a fault. Events of
 * endpoints no longer tracked (disconnected by the caller) are ignored.
 */
final class ZmqLinkMonitor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ZmqLinkMonitor.class);
  private static final AtomicInteger IDS = new AtomicInteger();
  /** The monitored events: a completed handshake and a lost connection. */
  static final int EVENTS = ZMQ.EVENT_HANDSHAKE_PROTOCOL | ZMQ.EVENT_DISCONNECTED;
  /** Monitor events handled per {@link #poll} (the rest wait for the next one). */
  private static final int MAX_EVENTS_PER_POLL = 64;

  /** Immutable: the state of one tracked endpoint. */
  private enum Link {
    /** Connect asked for, no handshake completed yet. */
    CONNECTING,
    /** Handshake completed, connection up. */
    UP,
    /** Was up, connection lost; reconnecting. */
    DOWN
  }

  private final ZContext context;
  private final ZmqCounters counters;
  private final String subscription;
  private final ZMQ.Socket sub;
  private final ZMQ.@Nullable Socket pair;
  private final String address;
  private final Map<String, Link> links = new HashMap<>();

  /**
   * Starts monitoring {@code sub}; if jeromq refuses, logs once and reports nothing (the plane still works, its
   * connection faults are then only visible as sequence gaps).
   */
  ZmqLinkMonitor(ZContext context, ZMQ.Socket sub, ZmqCounters counters, String subscription) {
    this.context = context;
    this.counters = counters;
    this.subscription = subscription;
    this.sub = sub;
    this.address = "inproc://kvrelay-zmq-monitor-" + IDS.incrementAndGet();
    ZMQ.Socket p = null;
    String why = "jeromq refused the monitor";
    try {
      if (sub.monitor(address, EVENTS)) {
        p = context.createSocket(SocketType.PAIR);
        p.setLinger(0);
        if (!p.connect(address)) {
          context.destroySocket(p);
          p = null;
        }
      }
    } catch (RuntimeException e) {
      why = e.toString();
      p = null;
    }
    if (p == null) {
      LOG.warn("ZMQ subscription {}: socket monitor unavailable ({}); connection losses are seen only as "
          + "sequence gaps", subscription, why);
    }
    this.pair = p;
  }

  /** Starts tracking {@code endpoint}, just connected by the SUB socket. */
  void track(String endpoint) {
    links.putIfAbsent(endpoint, Link.CONNECTING);
  }

  /** Stops tracking {@code endpoint}, disconnected by the caller: its later events are ignored. */
  void untrack(String endpoint) {
    Link was = links.remove(endpoint);
    if (was == Link.DOWN) {
      LOG.info("ZMQ subscription {}: {} removed while disconnected", subscription, endpoint);
    }
  }

  /** Reads the pending monitor events (never waits) and hands each resulting fault to {@code faults}. */
  void poll(Consumer<EventPlaneFault> faults) {
    ZMQ.Socket p = pair;
    if (p == null) {
      return;
    }
    for (int i = 0; i < MAX_EVENTS_PER_POLL; i++) {
      ZMQ.Event e = ZMQ.Event.recv(p, ZMQ.DONTWAIT);
      if (e == null) {
        return;
      }
      EventPlaneFault f = apply(e.getEvent(), e.getAddress());
      if (f != null) {
        faults.accept(f);
      }
    }
  }

  private @Nullable EventPlaneFault apply(int event, @Nullable String endpoint) {
    if (endpoint == null) {
      return null;
    }
    Link link = links.get(endpoint);
    if (link == null) {
      return null; // not (or no longer) ours
    }
    if (event == ZMQ.EVENT_HANDSHAKE_PROTOCOL) {
      links.put(endpoint, Link.UP);
      if (link == Link.CONNECTING) {
        LOG.debug("ZMQ subscription {}: {} connected", subscription, endpoint);
      } else if (link == Link.DOWN) {
        counters.reconnects.increment();
        LOG.info("ZMQ subscription {}: publisher at {} is back (connection re-established)", subscription,
            endpoint);
        return new EventPlaneFault.Reconnected(endpoint);
      }
    } else if (event == ZMQ.EVENT_DISCONNECTED && link == Link.UP) {
      links.put(endpoint, Link.DOWN);
      counters.disconnects.increment();
      LOG.warn("ZMQ subscription {}: connection to publisher at {} lost; its messages are lost until it is back "
          + "(reconnecting every {} ms up to {} ms)", subscription, endpoint, ZmqSubscription.RECONNECT_IVL_MS,
          ZmqSubscription.RECONNECT_IVL_MAX_MS);
      return new EventPlaneFault.Disconnected(endpoint);
    }
    return null;
  }

  @Override
  public void close() {
    ZMQ.Socket p = pair;
    if (p == null) {
      return;
    }
    try {
      sub.monitor(null, 0);
    } catch (RuntimeException e) {
      LOG.debug("ZMQ subscription {}: stopping the socket monitor: {}", subscription, e.toString());
    }
    context.destroySocket(p);
  }
}
