package dev.kvrelay.engine.recovery;

import dev.kvrelay.engine.actor.PoolCommand;
import dev.kvrelay.engine.actor.SubmitResult;
import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import java.util.function.LongSupplier;

/**
 * Not thread-safe: confined to the pool's recovery serial task. The event-id cursor rules for one source's live
 * events (and for its buffered ones re-fed after a recovery): unknown publisher or other member ⇒ dropped; rejected
 * source ⇒ dropped; fenced or recovering ⇒ buffered; at or below the cursor ⇒ stale; an all-domain {@code cleared} ⇒
 * barrier; contiguous ⇒ applied; first event or gap ⇒ buffered and a recovery started (a live-only source is reset).
 *
 * <p>The actor runs each command at once ({@code PoolActor.runInline}) and refuses one only once it closed (the pool
 * is retiring): a refused event is dropped (counted {@code submitRejected}); nothing waits for room.
 */
final class CursorRules {
  private final RecoveryParts p;
  private final Counters counters;
  private final RecoverySettings settings;
  private final LongSupplier nanoTime;

  CursorRules(RecoveryParts parts) {
    this.p = parts;
    this.counters = parts.counters;
    this.settings = parts.settings;
    this.nanoTime = parts.nanoTime;
  }

  /** One live event taken from the inbox. */
  void onInbound(EventEnvelope envelope, RouterEvent event) {
    Slot s = p.lifecycle.find(envelope.publisherId());
    if (s == null) {
      counters.add(Counter.UNKNOWN_PUBLISHER);
      p.lifecycle.rememberUnknown(envelope.publisherId());
      return;
    }
    if (event.workerId() != s.member.workerId() || event.dpRank() != s.member.dpRank()) {
      counters.add(Counter.MEMBER_MISMATCH);
      return;
    }
    s.lastEventNanos = nanoTime.getAsLong();
    handle(s, event, false);
  }

  /** The cursor rules for one event of {@code s} (live, or re-fed from the buffer). */
  private void handle(Slot s, RouterEvent ev, boolean fromBuffer) {
    if (s.rejected) {
      counters.add(Counter.REJECTED_SOURCE_EVENTS);
      return;
    }
    if (s.fenced) {
      buffer(s, ev, fromBuffer);
      return;
    }
    if (s.hasCursor && Long.compareUnsigned(ev.eventId(), s.cursor) <= 0) {
      counters.add(Counter.STALE);
      return;
    }
    if (isBarrier(ev)) {
      barrier(s, ev);
      return;
    }
    if (s.phase != Phase.LIVE) {
      buffer(s, ev, fromBuffer);
      return;
    }
    if (s.hasCursor && ev.eventId() == s.cursor + 1) {
      applyLive(s, ev); // refused only by a closed actor: dropped
      return;
    }
    if (s.hasCursor) {
      counters.add(Counter.GAPS);
    }
    if (!s.recoverable) {
      SubmitResult reset = p.offer(new PoolCommand.ResetRank(s.member, false));
      if (reset.accepted()) {
        counters.add(Counter.LIVE_ONLY_RESETS);
        s.countReset();
        applyLive(s, ev);
      }
      return; // a refusal (a closed actor) drops the event
    }
    buffer(s, ev, fromBuffer);
    p.queries.startRecovery(s,
        s.hasCursor ? "event-id gap at " + Long.toUnsignedString(ev.eventId()) : "first event");
  }

  private static boolean isBarrier(RouterEvent ev) {
    return ev.data() instanceof KvEventData.Cleared
        && ev.residencyDomain().kind() == ResidencyDomain.Kind.ABSENT
        && ev.storageTier() == StorageTier.DEVICE;
  }

  private void barrier(Slot s, RouterEvent ev) {
    counters.add(Counter.BARRIERS);
    // Everything before the barrier is void; buffered events after it (a barrier re-fed from the buffer) stay.
    invalidateAttempt(s);
    EventBuffer pending = s.buffer;
    if (pending != null) {
      counters.add(Counter.DISCARDED, pending.removeUpTo(ev.eventId()));
    }
    s.phase = Phase.LIVE;
    if (applyLive(s, ev)) {
      p.batches.leaveWave(s.member);
    } else if (s.recoverable) {
      buffer(s, ev, true);
      p.queries.startRecovery(s, "barrier not applied");
    }
    p.batches.maybeCloseWave();
  }

  /** Invalidates in-flight work of {@code s}: attempt, pending replacement, buffered events. */
  void invalidate(Slot s) {
    invalidateAttempt(s);
    EventBuffer b = s.buffer;
    if (b != null) {
      counters.add(Counter.DISCARDED, b.clear());
    }
  }

  /** Invalidates the in-flight attempt and pending replacement of {@code s}, not its buffer. */
  private void invalidateAttempt(Slot s) {
    s.epoch++;
    s.attempt = null;
    s.replacement = null;
    s.retries = 0;
    p.batches.remove(s);
  }

  /** Runs {@code Apply(ev)} for {@code s}; if accepted, counts it and moves the cursor to its id. */
  boolean applyLive(Slot s, RouterEvent ev) {
    SubmitResult result = p.offer(new PoolCommand.Apply(s.member, s.binding.publisherId(), ev));
    if (!result.accepted()) {
      return false;
    }
    counters.add(Counter.APPLIED);
    s.cursor = ev.eventId();
    s.hasCursor = true;
    return true;
  }

  private void buffer(Slot s, RouterEvent ev, boolean again) {
    EventBuffer b = s.buffer;
    if (b == null) {
      b = new EventBuffer(settings.bufferCapacity());
      s.buffer = b;
    }
    if (b.add(ev)) {
      counters.add(Counter.BUFFER_OVERFLOWS);
    }
    if (!again) {
      counters.add(Counter.BUFFERED);
    }
  }

  /** Re-feeds the buffered events of {@code s} in order (skip ≤ cursor, apply cursor + 1, recover on a hole). */
  void drain(Slot s) {
    EventBuffer b = s.buffer;
    if (b == null) {
      return;
    }
    // A barrier re-fed from the buffer may remove entries, so the size is checked on every step.
    for (int n = b.size(); n > 0 && b.size() > 0; n--) {
      handle(s, b.poll(), true);
    }
  }
}
