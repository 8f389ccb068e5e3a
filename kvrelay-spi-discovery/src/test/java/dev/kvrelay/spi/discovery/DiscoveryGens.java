package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonNumber;
import dev.kvrelay.api.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.quicktheories.api.Pair;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/** Stateless and thread-safe: QuickTheories generators of discovery keys and records. */
public final class DiscoveryGens {
  private DiscoveryGens() {}

  private static final List<String> TRICKY = List.of(".", "/", "%", " ", "é", "\uD83D\uDE00", "-", "_", "~", "%2F");

  /** Non-empty well-formed names, including characters that need percent encoding; optionally without '/'. */
  static Gen<String> names(boolean allowSlash) {
    Gen<Integer> lengths = Generate.range(1, 8);
    Gen<String> pieces = Generate.frequency(
        Pair.of(6, Generate.range('a', 'z').map(c -> String.valueOf((char) c.intValue()))),
        Pair.of(2, Generate.range('0', '9').map(c -> String.valueOf((char) c.intValue()))),
        Pair.of(2, Generate.pick(TRICKY)));
    return rs -> {
      String s;
      do {
        StringBuilder sb = new StringBuilder();
        int n = lengths.generate(rs);
        for (int i = 0; i < n; i++) {
          sb.append(pieces.generate(rs));
        }
        s = sb.toString();
        if (!allowSlash) {
          s = s.replace('/', 'x');
        }
      } while (s.isBlank() || Character.isWhitespace(s.charAt(0)) || Character.isWhitespace(s.charAt(s.length() - 1)));
      return s;
    };
  }

  /** Full-range u64 ids, biased to edges (0, 2^53 - 1, 2^63, 2^64 - 1). */
  static Gen<Long> ids() {
    return Generate.frequency(
        Pair.of(5, Generate.longRange(Long.MIN_VALUE, Long.MAX_VALUE)),
        Pair.of(2, Generate.longRange(0, (1L << 53) - 1)),
        Pair.of(1, Generate.pick(List.of(0L, (1L << 53) - 1, Long.MIN_VALUE, -1L, Long.MAX_VALUE))));
  }

  static Gen<DynamoEndpointId> endpoints(boolean allowSlash) {
    Gen<String> n = names(allowSlash);
    return n.zip(n, n, DynamoEndpointId::new);
  }

  static Gen<EventScope> scopes() {
    Gen<String> n = names(true);
    return Generate.oneOf(
        n.map(EventScope.Namespace::new),
        n.zip(n, EventScope.Component::new),
        endpoints(true).map(EventScope.Endpoint::new));
  }

  static Gen<DiscoveryKey> keys() {
    Gen<String> topics = Generate.oneOf(Generate.pick(List.of("kv-events", "kv_metrics")), names(true));
    Gen<String> suffixes = Generate.oneOf(Generate.constant((String) null), names(false));
    return Generate.oneOf(
        endpoints(false).zip(ids(), (e, id) -> (DiscoveryKey) new EndpointKey(e, id)),
        endpoints(false).zip(ids(), suffixes, (e, id, s) -> (DiscoveryKey) new ModelKey(e, id, s)),
        scopes().zip(topics, ids(), (s, t, id) -> (DiscoveryKey) new EventChannelKey(s, t, id)),
        scopes().zip(topics, ids(), (s, t, id) -> (DiscoveryKey) new EventSourceKey(s, t, id)));
  }

  static Gen<Transport> transports() {
    Gen<String> v = names(true);
    return Generate.oneOf(v.map(Transport.Tcp::new), v.map(Transport.NatsTcp::new), v.map(Transport.Http::new));
  }

  static Gen<EndpointRecord> endpointRecords() {
    Gen<String> optional = Generate.oneOf(Generate.constant((String) null), Generate.pick(List.of("json", "msgpack", "cuda")));
    return endpoints(false).zip(ids(), transports(), optional,
        (e, id, t, codec) -> new EndpointRecord(new EndpointKey(e, id), t, codec, codec == null ? "cpu" : null));
  }

  static Gen<JsonObject> cards() {
    Gen<String> n = names(true);
    Gen<Long> u32 = Generate.longRange(0, 0xFFFF_FFFFL);
    Gen<String> workerTypes = Generate.pick(List.of("prefill", "decode", "encode", "aggregated", "prefill|decode", "Decode"));
    Gen<Integer> coin = Generate.range(0, 1);
    return rs -> {
      JsonObject.Builder b = JsonObject.builder()
          .put("display_name", n.generate(rs))
          .put("kv_cache_block_size", JsonNumber.of(u32.generate(rs)));
      if (coin.generate(rs) == 1) {
        b.put("source_path", n.generate(rs));
      }
      if (coin.generate(rs) == 1) {
        b.put("worker_type", workerTypes.generate(rs));
        b.put("needs", JsonArray.of(JsonArray.ofStrings(List.of(workerTypes.generate(rs)))));
      }
      if (coin.generate(rs) == 1) {
        b.put("aliases", JsonArray.ofStrings(List.of(n.generate(rs), n.generate(rs))));
        b.put("model_type", "Chat | Prefill");
        b.put("lora", JsonObject.builder().put("name", n.generate(rs)).put("max_gpu_lora_count", JsonNumber.of(u32.generate(rs))).build());
      }
      if (coin.generate(rs) == 1) {
        long start = Generate.longRange(0, 1_000_000).generate(rs);
        b.put("runtime_config", JsonObject.builder()
            .put("data_parallel_start_rank", JsonNumber.of(start))
            .put("data_parallel_size", JsonNumber.of(Generate.longRange(1, 4096).generate(rs)))
            .put("total_kv_blocks", JsonNumber.ofUnsigned(ids().generate(rs)))
            .put("enable_eagle", coin.generate(rs) == 1)
            .put("enable_local_indexer", coin.generate(rs) == 1)
            .put("kv_state_endpoint", JsonObject.builder().put("namespace", "n").put("component", "c").put("name", "e").build())
            .put("taints", JsonArray.ofStrings(List.of(n.generate(rs))))
            .put("unknown_future_field", JsonArray.of())
            .build());
      }
      if (coin.generate(rs) == 1) {
        b.put("indexer_identity", JsonObject.builder()
            .put("semantics", JsonObject.builder().put("k" + n.generate(rs), n.generate(rs)).build()).build());
      }
      return b.build();
    };
  }

  static Gen<DiscoveryRecord> records() {
    Gen<String> suffixes = Generate.oneOf(Generate.constant((String) null), names(false));
    Gen<DiscoveryRecord> models = endpoints(false).zip(ids(), suffixes, cards(), (e, id, s, card) -> {
      try {
        return ModelRecord.of(new ModelKey(e, id, s), card);
      } catch (DiscoveryDecodeException ex) {
        throw new AssertionError(card.toJson(), ex);
      }
    });
    Gen<String> v = names(true);
    Gen<ChannelTransport> channelTransports = Generate.oneOf(
        v.map(ChannelTransport.Nats::new),
        v.map(ChannelTransport.Zmq::new),
        v.zip(v, (a, b) -> new ChannelTransport.ZmqBroker(List.of(a, b), List.of(b))));
    Gen<DiscoveryRecord> channels = scopes().zip(v, ids(), channelTransports,
        (s, t, id, tr) -> new EventChannelRecord(new EventChannelKey(s, t, id), tr));
    Gen<EndpointRecord> recoveryTargets = Generate.oneOf(Generate.constant((EndpointRecord) null), endpointRecords());
    Gen<DiscoveryRecord> sources = scopes().zip(endpoints(true), ids(), recoveryTargets, (s, kv, pub, rt) -> {
      long worker = pub * 31 + 7;
      long rank = Long.remainderUnsigned(pub, 0x1_0000_0000L);
      return new EventSourceRecord(new EventSourceKey(s, "kv-events", pub), new KvEventSource(kv, worker, rank, pub, rt));
    });
    return Generate.oneOf(endpointRecords().map(r -> (DiscoveryRecord) r), models, channels, sources);
  }

  /** A list of records. */
  static Gen<List<DiscoveryRecord>> recordLists() {
    Gen<DiscoveryRecord> r = records();
    Gen<Integer> sizes = Generate.range(0, 6);
    return rs -> {
      List<DiscoveryRecord> out = new ArrayList<>();
      int n = sizes.generate(rs);
      for (int i = 0; i < n; i++) {
        out.add(r.generate(rs));
      }
      return out;
    };
  }
}
