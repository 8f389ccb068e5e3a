package dev.kvrelay.engine.recovery;

import dev.kvrelay.ckf.producer.MemberId;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StoredBlock;
import dev.kvrelay.spi.eventplane.WorkerKvQueryRequest;
import dev.kvrelay.spi.eventplane.WorkerKvQueryResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Not thread-safe: confined to the test thread. A model worker rank with its true event history (ids from 1,
 * single-block root Stored events, Removed, Cleared): answers recovery queries from it, as the worker's
 * local indexer does (tree dump of the current state, or the buffered events from the requested start).
 */
final class TrueWorker {
  final MemberId member;
  final List<RouterEvent> history = new ArrayList<>();
  private final Map<Long, Long> resident = new LinkedHashMap<>();

  TrueWorker(MemberId member) {
    this.member = member;
  }

  /** Appends the next event of the history (its id is history size + 1) and returns it. */
  RouterEvent publish(KvEventData data) {
    long id = history.size() + 1;
    RouterEvent e = data instanceof KvEventData.Cleared
        ? RecoveryFixture.cleared(member, id)
        : new RouterEvent(member.workerId(), dev.kvrelay.spi.eventplane.StorageTier.DEVICE,
            dev.kvrelay.spi.eventplane.ResidencyDomain.WORKER, id, member.dpRank(), data);
    history.add(e);
    if (data instanceof KvEventData.Stored s) {
      for (StoredBlock b : s.blocks()) {
        resident.putIfAbsent(b.blockHash(), b.tokensHash());
      }
    } else if (data instanceof KvEventData.Removed r) {
      for (long h : r.blockHashes()) {
        resident.remove(h);
      }
    } else {
      resident.clear();
    }
    return e;
  }

  RouterEvent storeRoot(long blockHash) {
    return publish(new KvEventData.Stored(java.util.OptionalLong.empty(), java.util.OptionalLong.empty(),
        List.of(StoredBlock.of(blockHash, tokens(blockHash)))));
  }

  static long tokens(long blockHash) {
    return blockHash * 0x9E3779B97F4A7C15L + 0x1234567L;
  }

  long head() {
    return history.size();
  }

  WorkerKvQueryResponse answer(WorkerKvQueryRequest r) {
    if (r.startEventId().isEmpty()) {
      List<RouterEvent> dump = new ArrayList<>();
      long synthetic = 0;
      for (Map.Entry<Long, Long> e : resident.entrySet()) {
        dump.add(RecoveryFixture.stored(member, synthetic++, e.getKey(), e.getValue()));
      }
      return new WorkerKvQueryResponse.TreeDump(dump, head(), "all");
    }
    long start = r.startEventId().getAsLong();
    if (start > head() + 1) {
      return new WorkerKvQueryResponse.TooNew(r.startEventId(), r.endEventId(), head());
    }
    return new WorkerKvQueryResponse.Events(history.subList((int) start - 1, (int) head()), head());
  }
}
