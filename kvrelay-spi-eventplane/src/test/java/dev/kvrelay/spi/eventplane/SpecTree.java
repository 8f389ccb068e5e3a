package dev.kvrelay.spi.eventplane;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Stateless and thread-safe: the generic msgpack value tree of an event-plane value, written from the
 * spec's field lists (runtime-inputs.md §5.6, §5.7, §8) independently of the codec: maps in spec key
 * order, unsigned integers as {@link BigInteger}, nil as {@code null}, byte strings as {@code byte[]}, unit
 * variants as {@link Unit}, newtype variants as {@link Variant}.
 */
final class SpecTree {
  private SpecTree() {}

  /** Immutable and thread-safe: a unit enum variant (bare string in canonical form). */
  record Unit(String name) {}

  /** Immutable and thread-safe: a newtype/struct variant (one-entry map). */
  record Variant(String name, Object value) {}

  static BigInteger u(long v) {
    return new BigInteger(Long.toUnsignedString(v));
  }

  static Object opt(OptionalLong v) {
    return v.isPresent() ? u(v.getAsLong()) : null;
  }

  static Map<String, Object> routerEvent(RouterEvent e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("worker_id", u(e.workerId()));
    m.put("storage_tier", new Unit(e.storageTier().name().toLowerCase(java.util.Locale.ROOT)));
    if (e.residencyDomain().kind() != ResidencyDomain.Kind.ABSENT) {
      String raw = e.residencyDomain().raw();
      m.put("residency_domain", raw == null ? null : new Unit(raw));
    }
    Map<String, Object> ev = new LinkedHashMap<>();
    ev.put("event_id", u(e.eventId()));
    ev.put("data", data(e.data()));
    ev.put("dp_rank", u(Integer.toUnsignedLong(e.dpRank())));
    m.put("event", ev);
    return m;
  }

  static Object data(KvEventData d) {
    if (d instanceof KvEventData.Stored s) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("parent_hash", opt(s.parentHash()));
      m.put("start_position", opt(s.startPosition()));
      List<Object> blocks = new ArrayList<>();
      for (StoredBlock b : s.blocks()) {
        Map<String, Object> bm = new LinkedHashMap<>();
        bm.put("block_hash", u(b.blockHash()));
        bm.put("tokens_hash", u(b.tokensHash()));
        bm.put("mm_extra_info", b.mmExtraInfo() == null ? null : mm(b.mmExtraInfo()));
        blocks.add(bm);
      }
      m.put("blocks", blocks);
      return new Variant("stored", m);
    }
    if (d instanceof KvEventData.Removed r) {
      List<Object> hashes = new ArrayList<>();
      for (long h : r.blockHashes()) {
        hashes.add(u(h));
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("block_hashes", hashes);
      return new Variant("removed", m);
    }
    return new Unit("cleared");
  }

  static Map<String, Object> mm(MmExtraInfo info) {
    List<Object> objs = new ArrayList<>();
    for (MmExtraInfo.MmObject o : info.mmObjects()) {
      Map<String, Object> om = new LinkedHashMap<>();
      om.put("mm_hash", u(o.mmHash()));
      List<Object> offs = new ArrayList<>();
      for (MmExtraInfo.TokenRange t : o.offsets()) {
        offs.add(List.of(u(t.start()), u(t.end())));
      }
      om.put("offsets", offs);
      objs.add(om);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("mm_objects", objs);
    return m;
  }

  static Map<String, Object> activeLoad(ActiveLoad l) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("worker_id", u(l.workerId()));
    m.put("dp_rank", u(Integer.toUnsignedLong(l.dpRank())));
    m.put("active_decode_blocks", opt(l.activeDecodeBlocks()));
    m.put("active_prefill_tokens", opt(l.activePrefillTokens()));
    m.put("scheduler_load_scope", l.schedulerLoadScope() == null ? null
        : new Unit(l.schedulerLoadScope().name().toLowerCase(java.util.Locale.ROOT)));
    m.put("kv_used_blocks", opt(l.kvUsedBlocks()));
    return m;
  }

  static Map<String, Object> envelope(EventEnvelope env, byte[] payload) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("publisher_id", u(env.publisherId()));
    m.put("sequence", u(env.sequence()));
    m.put("published_at", u(env.publishedAtMs()));
    m.put("topic", env.topic());
    m.put("payload", payload);
    return m;
  }

  /** The tree as JSON for Python ({@code {"$bin": hex}} for byte strings). */
  static String json(Object v) {
    StringBuilder sb = new StringBuilder();
    json(v, sb);
    return sb.toString();
  }

  private static void json(Object v, StringBuilder sb) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof BigInteger b) {
      sb.append(b);
    } else if (v instanceof String s) {
      jsonString(s, sb);
    } else if (v instanceof Unit u) {
      jsonString(u.name(), sb);
    } else if (v instanceof Variant var) {
      sb.append('{');
      jsonString(var.name(), sb);
      sb.append(':');
      json(var.value(), sb);
      sb.append('}');
    } else if (v instanceof byte[] bytes) {
      sb.append("{\"$bin\":\"").append(Hex.of(bytes)).append("\"}");
    } else if (v instanceof List<?> list) {
      sb.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        json(list.get(i), sb);
      }
      sb.append(']');
    } else if (v instanceof Map<?, ?> map) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        jsonString((String) e.getKey(), sb);
        sb.append(':');
        json(e.getValue(), sb);
      }
      sb.append('}');
    } else {
      throw new IllegalArgumentException("unsupported tree node " + v.getClass());
    }
  }

  private static void jsonString(String s, StringBuilder sb) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20 || c > 0x7E) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    sb.append('"');
  }
}
