package dev.kvrelay.launcher.system;

import dev.kvrelay.launcher.health.RelayHealth;
import dev.kvrelay.launcher.health.SourcesStatus;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Thread-safe (stateless): the system server's JSON bodies, written with jackson-core's generator. */
final class SystemJson {
  private static final JsonFactory JSON = new JsonFactory();

  private SystemJson() {}

  /**
   * Upstream's health body (plugins-wire §4): {@code {"status":"ready"|"notready","uptime":{"secs":N,"nanos":N},
   * "endpoints":{"<name>":"ready"|"notready"}}}.
   */
  static byte[] health(RelayHealth health, Duration uptime) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("status", health.healthy() ? "ready" : "notready");
      g.writeObjectFieldStart("uptime");
      g.writeNumberField("secs", uptime.getSeconds());
      g.writeNumberField("nanos", uptime.getNano());
      g.writeEndObject();
      g.writeObjectFieldStart("endpoints");
      for (Map.Entry<String, Boolean> e : new java.util.TreeMap<>(health.endpoints()).entrySet()) {
        g.writeStringField(e.getKey(), e.getValue() ? "ready" : "notready");
      }
      g.writeEndObject();
      g.writeEndObject();
    });
  }

  /**
   * {@code GET /engine/state} (producer §7.5): {@code {podUID, mode, connectionRevision, ready, sources}} with
   * {@code sources} = {@code {desiredRevision, appliedRevision, count, lastError}}.
   */
  static byte[] engineState(RelayProcessInfo info, RelayHealth health) {
    return write(g -> {
      g.writeStartObject();
      nullableString(g, "podUID", info.podUid());
      g.writeStringField("mode", info.mode());
      nullableString(g, "connectionRevision", info.connectionRevision());
      g.writeBooleanField("ready", health.engineStateReady());
      SourcesStatus s = health.sources();
      g.writeObjectFieldStart("sources");
      nullableString(g, "desiredRevision", s.desiredRevision());
      nullableString(g, "appliedRevision", s.appliedRevision());
      g.writeNumberField("count", s.count());
      nullableString(g, "lastError", s.lastError());
      g.writeEndObject();
      g.writeEndObject();
    });
  }

  /** A {@code {"error": message}} body. */
  static byte[] error(String message) {
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("error", message);
      g.writeEndObject();
    });
  }

  private static void nullableString(JsonGenerator g, String name, @Nullable String value) throws IOException {
    if (value == null) {
      g.writeNullField(name);
    } else {
      g.writeStringField(name, value);
    }
  }

  /** Not thread-safe: one body's writer. */
  private interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  private static byte[] write(Body body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
