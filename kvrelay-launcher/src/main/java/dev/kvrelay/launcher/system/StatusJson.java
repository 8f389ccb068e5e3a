package dev.kvrelay.launcher.system;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * Thread-safe (stateless): the {@code /status.json} body, written with jackson-core's generator. Unsigned 64-bit
 * values (incarnations, generation, sequence) are written as JSON numbers in their unsigned decimal form.
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
        g.writeObjectFieldStart("history");
        doubles(g, "eventsPerSecond", p.history().eventsPerSecond());
        doubles(g, "sequencePerSecond", p.history().sequencePerSecond());
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
      counters(g, "errors", r.errors());
      if (r.sourcesLastError() == null) {
        g.writeNullField("sourcesLastError");
      } else {
        g.writeStringField("sourcesLastError", r.sourcesLastError());
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static void unsigned(JsonGenerator g, String name, long value) throws IOException {
    g.writeFieldName(name);
    g.writeNumber(Long.toUnsignedString(value));
  }

  private static void counters(JsonGenerator g, String name, Map<String, Long> values) throws IOException {
    g.writeObjectFieldStart(name);
    for (Map.Entry<String, Long> e : values.entrySet()) {
      g.writeNumberField(e.getKey(), e.getValue());
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
