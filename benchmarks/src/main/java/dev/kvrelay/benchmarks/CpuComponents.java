package dev.kvrelay.benchmarks;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Stateless and thread-safe: groups per-thread CPU samples ({@code /proc/self/task}, native names of at most 15
 * characters) into the relay's components, in cores: {@code publisher} (the simulated worker: the harness's
 * main thread, {@code java} in {@code /proc}), {@code plane} (the event plane's delivery thread:
 * {@code kvrelay-mem-events-*},
 * {@code kvrelay-zmq-sub-*}, {@code kvrelay-nats-*}), {@code transport-io} (the client libraries' own I/O threads,
 * worker and relay side together: jeromq {@code iothread-*}/{@code reaper-*}; jnats {@code bench-worker:*} for the
 * worker and {@code kvrelay-eventplane*} for the relay's connection), {@code actor} (the pool actor
 * threads {@code kvrelay-pool-*}), {@code hub+grpc} (the gRPC server's pumps, Netty event loops and executors, both
 * the server and the in-process client), {@code consumer} (the replica thread {@code wan-bench-replica}) and
 * {@code other} (GC, JIT, the rest of the JVM).
 */
final class CpuComponents {
  static final String[] NAMES = {"publisher", "plane", "transport-io", "actor", "hub+grpc", "consumer", "other"};

  private CpuComponents() {}

  /** The component of a native thread name. */
  static String of(String name) {
    if (name.equals("main") || name.equals("java")) { // the launcher's main thread is "java" in /proc
      return "publisher";
    }
    if (name.startsWith("kvrelay-mem-eve") || name.startsWith("kvrelay-zmq-sub") || name.startsWith("kvrelay-nats-")) {
      return "plane";
    }
    if (name.startsWith("iothread") || name.startsWith("reaper") || name.startsWith("kvrelay-eventpl")
        || name.startsWith("bench-worker") || name.toLowerCase(Locale.ROOT).contains("nats")) {
      return "transport-io";
    }
    if (name.startsWith("kvrelay-pool")) {
      return "actor";
    }
    if (name.contains("grpc") || name.startsWith("kvrelay-consum")) {
      return "hub+grpc";
    }
    if (name.startsWith("wan-bench-repli")) {
      return "consumer";
    }
    return "other";
  }

  /** CPU in cores per component between two samples of {@code "tid name" -> {ns}}, every component present. */
  static Map<String, Double> delta(Map<String, long[]> before, Map<String, long[]> after, long wallNanos) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (String n : NAMES) {
      m.put(n, 0.0);
    }
    for (Map.Entry<String, long[]> e : after.entrySet()) {
      long[] b = before.get(e.getKey());
      long ns = e.getValue()[0] - (b == null ? 0 : b[0]);
      m.merge(of(e.getKey().substring(e.getKey().indexOf(' ') + 1)), ns / (double) wallNanos, Double::sum);
    }
    return m;
  }

  /** {@code "publisher 0.12 / plane 0.20 / ..."}. */
  static String format(Map<String, Double> cores) {
    StringBuilder b = new StringBuilder();
    cores.forEach((k, v) -> b.append(b.length() == 0 ? "" : " / ").append(k)
        .append(String.format(Locale.ROOT, " %.2f", v)));
    return b.toString();
  }
}
