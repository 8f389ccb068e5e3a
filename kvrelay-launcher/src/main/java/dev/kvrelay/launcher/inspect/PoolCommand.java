package dev.kvrelay.launcher.inspect;

import dev.kvrelay.api.RelayException;
import dev.kvrelay.ckf.PackedBucket;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Not thread-safe: confined to the thread running the command line. {@code kvrelay inspect pool}: subscribes to one
 * pool with the catalog's producer, validates every frame ({@link PoolSession}) for {@code --seconds}, and reports
 * the replica's filter; exit {@link InspectCommand#OK} only if every frame validated and a snapshot installed.
 */
@Command(name = "pool", mixinStandardHelpOptions = true,
    description = "Subscribe to a pool with the catalog's producer, assemble and validate its CBI1 snapshot, "
        + "apply and validate deltas, and report the filter. Exit 0 only if every frame validated.")
final class PoolCommand extends PoolCommandBase {
  @Option(names = "--seconds", defaultValue = "10", paramLabel = "N", description = "Follow for N seconds.")
  double seconds = 10;

  @Override
  public Integer call() throws Exception {
    try (Connected c = connect()) {
      KvPoolDescriptor pool;
      try {
        pool = pick(c.client());
      } catch (RelayException e) {
        return connection.fail("WatchKvPoolCatalog", e);
      }
      if (pool == null) {
        return InspectCommand.CALL_FAILED;
      }
      PoolSession s;
      long start = System.nanoTime();
      try {
        s = follow(c.client(), pool, seconds, false, true);
      } catch (RelayException e) {
        return connection.fail("SubscribeKvPool", e);
      }
      if (s == null) {
        return InspectCommand.CALL_FAILED;
      }
      report(pool, s, start, System.nanoTime());
      return s.violation() != null ? invalid(s) : InspectCommand.OK;
    }
  }

  private void report(KvPoolDescriptor pool, PoolSession s, long start, long now) throws IOException {
    double followed = Math.max(1e-9, (now - (s.installedNanos() == 0 ? start : s.installedNanos())) / 1e9);
    long slots = (long) s.buckets() * PackedBucket.SLOTS;
    List<Map.Entry<String, Object>> rows = new ArrayList<>();
    rows.add(Map.entry("pool", pool.servingEndpoint().dottedName()));
    rows.add(Map.entry("dcId", Long.toUnsignedString(pool.producer().poolId().dcId().value())));
    rows.add(Map.entry("producerIncarnation", Long.toUnsignedString(pool.producer().producerIncarnation())));
    rows.add(Map.entry("layoutGeneration", Long.toUnsignedString(pool.producer().layoutGeneration())));
    rows.add(Map.entry("buckets", s.buckets()));
    rows.add(Map.entry("occupiedSlots", s.occupiedSlots()));
    rows.add(Map.entry("fillRatio", s.occupiedSlots() / (double) slots));
    rows.add(Map.entry("sequence", Long.toUnsignedString(s.sequence())));
    rows.add(Map.entry("frames", s.frames()));
    rows.add(Map.entry("snapshotChunks", s.chunks()));
    rows.add(Map.entry("snapshotBytes", s.chunkBytes()));
    rows.add(Map.entry("deltas", s.deltas()));
    rows.add(Map.entry("deltaBytes", s.deltaBytes()));
    rows.add(Map.entry("deltasPerSecond", s.deltas() / followed));
    rows.add(Map.entry("heartbeats", s.heartbeats()));
    rows.add(Map.entry("heartbeatAgeMs", s.lastHeartbeatNanos() == 0 ? -1 : (now - s.lastHeartbeatNanos()) / 1e6));
    rows.add(Map.entry("valid", s.violation() == null));
    rows.add(Map.entry("violation", s.violation() == null ? "" : s.violation()));
    Report.print(connection, rows);
  }
}
