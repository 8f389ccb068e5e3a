package dev.kvrelay.launcher.system;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (stateless): the {@code /status.json} body, written with jackson-core's generator. Unsigned 64-bit
 * values (incarnations, generation, sequences, lags, counter totals) are written as JSON numbers in their unsigned
 * decimal form; {@code loadWindows.pool.window} and {@code loadWindows.serving.window} are null until the page's
 * watch took a window.
 */
final class StatusJson {
  private static final JsonFactory JSON = new JsonFactory();

  private StatusJson() {}

  static byte[] write(StatusReport r) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(2048);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("dcName", r.dcName());
      g.writeStringField("dcId", r.dcId());
      unsigned(g, "drtInstanceId", r.drtInstanceId());
      unsigned(g, "incarnation", r.incarnation());
      g.writeNumberField("uptimeSeconds", r.uptime().toMillis() / 1000.0);
      g.writeBooleanField("ready", r.ready());
      g.writeNumberField("catalogRevision", r.catalogRevision());
      g.writeNumberField("topologyRevision", r.topologyRevision());
      g.writeNumberField("poolSubscribers", r.poolSubscribers());
      g.writeNumberField("poolLagged", r.poolLagged());
      g.writeArrayFieldStart("pools");
      for (StatusReport.Pool p : r.pools()) {
        g.writeStartObject();
        g.writeStringField("endpoint", p.endpoint());
        g.writeStringField("state", p.state());
        unsigned(g, "producerIncarnation", p.producerIncarnation());
        unsigned(g, "generation", p.generation());
        g.writeNumberField("buckets", p.buckets());
        g.writeNumberField("slots", p.slots());
        g.writeNumberField("occupiedSlots", p.occupiedSlots());
        g.writeNumberField("fill", p.fill());
        g.writeNumberField("residentHashes", p.residentHashes());
        g.writeNumberField("capacityOmissions", p.capacityOmissions());
        unsigned(g, "sequence", p.sequence());
        g.writeNumberField("appliedEvents", p.appliedEvents());
        g.writeNumberField("eventsPerSecond", p.eventsPerSecond());
        g.writeNumberField("sequencePerSecond", p.sequencePerSecond());
        g.writeNumberField("publishedDeltas", p.publishedDeltas());
        g.writeNumberField("publishedSnapshots", p.publishedSnapshots());
        counters(g, "recovery", p.recovery());
        counters(g, "load", p.load());
        unsigned(g, "maxLag", p.maxLag());
        subscribers(g, "subscribers", p.subscribers());
        sources(g, p.sources());
        g.writeObjectFieldStart("history");
        doubles(g, "eventsPerSecond", p.history().eventsPerSecond());
        doubles(g, "sequencePerSecond", p.history().sequencePerSecond());
        doubles(g, "maxLag", p.history().maxLag());
        g.writeEndObject();
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeArrayFieldStart("readiness");
      for (StatusReport.Readiness e : r.readiness()) {
        g.writeStartObject();
        g.writeStringField("namespace", e.namespace());
        g.writeStringField("model", e.model());
        g.writeStringField("state", e.state());
        strings(g, "presentRoles", e.presentRoles());
        strings(g, "missingRoles", e.missingRoles());
        g.writeArrayFieldStart("adapters");
        for (StatusReport.Adapter a : e.adapters()) {
          g.writeStartObject();
          g.writeStringField("model", a.model());
          g.writeStringField("state", a.state());
          strings(g, "missingRoles", a.missingRoles());
          g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
      }
      g.writeEndArray();
      StatusReport.Load l = r.load();
      g.writeObjectFieldStart("load");
      g.writeNumberField("windowsPublished", l.windowsPublished());
      g.writeNumberField("servingWindowsPublished", l.servingWindowsPublished());
      g.writeNumberField("degradedCoveragePools", l.degradedCoveragePools());
      g.writeNumberField("catalogPools", l.catalogPools());
      g.writeNumberField("observations", l.observations());
      g.writeNumberField("rejected", l.rejected());
      g.writeNumberField("publishErrors", l.publishErrors());
      g.writeNumberField("subscribers", l.subscribers());
      g.writeNumberField("servingSubscribers", l.servingSubscribers());
      g.writeEndObject();
      loadWindows(g, r.loadWindows());
      g.writeArrayFieldStart("connections");
      for (StatusReport.Connection c : r.connections()) {
        g.writeStartObject();
        g.writeStringField("plugin", c.plugin());
        g.writeStringField("scope", c.scope());
        g.writeStringField("state", c.state());
        counters(g, "counters", c.counters());
        nullableString(g, "detail", c.detail());
        g.writeEndObject();
      }
      g.writeEndArray();
      counters(g, "errors", r.errors());
      g.writeObjectFieldStart("recentErrors");
      g.writeNumberField("capacity", RecentErrors.CAPACITY);
      g.writeNumberField("recorded", r.recentErrorsRecorded());
      g.writeNumberField("dropped", r.recentErrorsDropped());
      g.writeArrayFieldStart("entries");
      for (RecentErrors.Entry e : r.recentErrors()) {
        g.writeStartObject();
        g.writeStringField("at", Instant.ofEpochMilli(e.atMillis()).toString());
        g.writeNumberField("atMillis", e.atMillis());
        g.writeStringField("scope", e.scope());
        g.writeStringField("what", e.what());
        unsigned(g, "increase", e.increase());
        unsigned(g, "total", e.total());
        nullableString(g, "message", e.message());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
      subscribers(g, "unattachedSubscribers", r.unattachedSubscribers());
      nullableString(g, "sourcesLastError", r.sourcesLastError());
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static void loadWindows(JsonGenerator g, StatusLoadWindows w) throws IOException {
    g.writeObjectFieldStart("loadWindows");
    g.writeObjectFieldStart("pool");
    watch(g, w.poolWatch());
    StatusLoadWindows.PoolWindow p = w.pool();
    if (p == null) {
      g.writeNullField("window");
    } else {
      g.writeObjectFieldStart("window");
      unsigned(g, "windowSequence", p.windowSequence());
      g.writeNumberField("observedMs", p.observedMs());
      unsigned(g, "windowMs", p.windowMs());
      g.writeNumberField("receivedAtMs", p.receivedAtMs());
      g.writeNumberField("ageMs", p.ageMs());
      g.writeArrayFieldStart("pools");
      for (StatusLoadWindows.PoolCoverage c : p.pools()) {
        g.writeStartObject();
        g.writeStringField("endpoint", c.endpoint());
        unsigned(g, "producerIncarnation", c.producerIncarnation());
        unsigned(g, "generation", c.generation());
        g.writeNumberField("observedRanks", c.observedRanks());
        g.writeNumberField("expectedRanks", c.expectedRanks());
        g.writeStringField("coverage", c.coverage());
        unsigned(g, "kvUsedBlocks", c.kvUsedBlocks());
        unsigned(g, "totalKvBlocks", c.totalKvBlocks());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    g.writeEndObject();
    g.writeObjectFieldStart("serving");
    watch(g, w.servingWatch());
    StatusLoadWindows.ServingWindow s = w.serving();
    if (s == null) {
      g.writeNullField("window");
    } else {
      g.writeObjectFieldStart("window");
      unsigned(g, "windowSequence", s.windowSequence());
      g.writeNumberField("observedMs", s.observedMs());
      g.writeNumberField("receivedAtMs", s.receivedAtMs());
      g.writeNumberField("ageMs", s.ageMs());
      g.writeArrayFieldStart("pools");
      for (StatusLoadWindows.ServingPool x : s.pools()) {
        g.writeStartObject();
        g.writeStringField("endpoint", x.endpoint());
        g.writeStringField("status", x.status());
        nullableUnsigned(g, "activePrefillTokens", x.activePrefillTokens());
        nullableUnsigned(g, "activeDecodeBlocks", x.activeDecodeBlocks());
        nullableUnsigned(g, "liveWorkers", x.liveWorkers());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeArrayFieldStart("models");
      for (StatusLoadWindows.ServingModel m : s.models()) {
        g.writeStartObject();
        g.writeStringField("namespace", m.namespace());
        g.writeStringField("model", m.model());
        g.writeStringField("status", m.status());
        unsigned(g, "expectedFrontends", m.expectedFrontends());
        unsigned(g, "observedFrontends", m.observedFrontends());
        g.writeNumberField("servingPools", m.servingPools());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
    g.writeEndObject();
    g.writeEndObject();
  }

  private static void watch(JsonGenerator g, LoadWindowWatch.State s) throws IOException {
    g.writeObjectFieldStart("watch");
    g.writeStringField("subscriberId", s.subscriberId());
    g.writeBooleanField("open", s.open());
    g.writeNumberField("opened", s.opened());
    g.writeNumberField("ended", s.ended());
    g.writeNumberField("openFailures", s.openFailures());
    g.writeNumberField("windows", s.windows());
    nullableString(g, "lastEnd", s.lastEnd());
    g.writeEndObject();
  }

  private static void nullableUnsigned(JsonGenerator g, String name, @Nullable Long value) throws IOException {
    if (value == null) {
      g.writeNullField(name);
    } else {
      unsigned(g, name, value);
    }
  }

  private static void subscribers(JsonGenerator g, String name, List<StatusReport.Subscriber> subs)
      throws IOException {
    g.writeArrayFieldStart(name);
    for (StatusReport.Subscriber s : subs) {
      g.writeStartObject();
      g.writeStringField("subscriberId", s.subscriberId());
      g.writeStringField("stream", s.stream());
      g.writeNumberField("queuedFrames", s.queuedFrames());
      g.writeNumberField("queuedBytes", s.queuedBytes());
      unsigned(g, "publishedSequence", s.publishedSequence());
      unsigned(g, "deliveredSequence", s.deliveredSequence());
      unsigned(g, "sequenceLag", s.sequenceLag());
      g.writeNumberField("pendingSnapshotChunks", s.pendingSnapshotChunks());
      g.writeNumberField("connectedSinceMicros", s.connectedSinceMicros());
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  /** {@code sources}: the pool's bound sources, an empty array without any. */
  private static void sources(JsonGenerator g, List<StatusReport.Source> sources) throws IOException {
    g.writeArrayFieldStart("sources");
    for (StatusReport.Source s : sources) {
      g.writeStartObject();
      unsigned(g, "workerId", s.workerId());
      g.writeFieldName("dpRank");
      g.writeNumber(Integer.toUnsignedString(s.dpRank()));
      unsigned(g, "publisherId", s.publisherId());
      g.writeStringField("state", s.state());
      g.writeBooleanField("recoverable", s.recoverable());
      g.writeBooleanField("suspect", s.suspect());
      g.writeNumberField("lastEventAgeMs", s.lastEventAgeMs());
      unsigned(g, "resets", s.resets());
      g.writeNumberField("bufferedEvents", s.bufferedEvents());
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  private static void nullableString(JsonGenerator g, String name, @Nullable String value) throws IOException {
    if (value == null) {
      g.writeNullField(name);
    } else {
      g.writeStringField(name, value);
    }
  }

  private static void unsigned(JsonGenerator g, String name, long value) throws IOException {
    g.writeFieldName(name);
    g.writeNumber(Long.toUnsignedString(value));
  }

  private static void counters(JsonGenerator g, String name, Map<String, Long> values) throws IOException {
    g.writeObjectFieldStart(name);
    for (Map.Entry<String, Long> e : values.entrySet()) {
      unsigned(g, e.getKey(), e.getValue());
    }
    g.writeEndObject();
  }

  private static void strings(JsonGenerator g, String name, List<String> values) throws IOException {
    g.writeArrayFieldStart(name);
    for (String v : values) {
      g.writeString(v);
    }
    g.writeEndArray();
  }

  private static void doubles(JsonGenerator g, String name, double[] values) throws IOException {
    g.writeArrayFieldStart(name);
    for (double v : values) {
      g.writeNumber(v);
    }
    g.writeEndArray();
  }
}
