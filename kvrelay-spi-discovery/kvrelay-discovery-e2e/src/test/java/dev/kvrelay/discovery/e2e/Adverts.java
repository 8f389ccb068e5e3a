package dev.kvrelay.discovery.e2e;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.WorkerRole;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Stateless and thread-safe: the keys and raw {@code DiscoveryInstance} JSON a Dynamo worker writes, typed out from
 * {@code runtime-inputs.md} §1.2–§1.4 and §4 as text (deliberately not through the project's codec, so a codec fault
 * cannot cancel itself out).
 */
public final class Adverts {
  public static final String INSTANCES = "v1/instances";
  public static final String MDC = "v1/mdc";
  public static final String EVENT_SOURCES = "v1/event_sources";

  private Adverts() {}

  /** Immutable and thread-safe: one value a worker writes: bucket, path inside it, raw JSON. */
  public record Advert(String bucket, String path, String json) {}

  /** Everything {@code w} advertises as the process with {@code instanceId}, its KV publisher {@code publisherId}. */
  public static List<Advert> of(Worker w, long instanceId, long publisherId) {
    List<Advert> out = new java.util.ArrayList<>();
    out.add(endpoint(w, instanceId));
    out.add(baseCard(w, instanceId));
    for (Worker.Adapter a : w.adapters()) {
      out.add(adapterCard(w, a, instanceId));
    }
    if (w.kvEvents()) {
      out.add(eventSource(w, instanceId, publisherId));
    }
    return out;
  }

  static String hex(long id) {
    return Long.toHexString(id);
  }

  static String instancePath(DynamoEndpointId e, long id) {
    return e.namespace() + "/" + e.component() + "/" + e.endpoint() + "/" + hex(id);
  }

  static Advert endpoint(Worker w, long id) {
    DynamoEndpointId e = w.endpoint();
    return new Advert(INSTANCES, instancePath(e, id), "{\"type\":\"Endpoint\"," + endpointFields(e)
        + ",\"instance_id\":" + Long.toUnsignedString(id) + ",\"transport\":{\"tcp\":\"127.0.0.1:9999/"
        + e.endpoint() + "\"},\"request_plane_codec\":\"json\"}");
  }

  static Advert baseCard(Worker w, long id) {
    String card = "{\"display_name\":" + q(w.model()) + ",\"kv_cache_block_size\":16" + roleFields(w)
        + ",\"runtime_config\":{\"data_parallel_start_rank\":0,\"data_parallel_size\":1,\"total_kv_blocks\":1000"
        + ",\"taints\":[" + w.taints().stream().map(Adverts::q).collect(Collectors.joining(",")) + "]}}";
    return new Advert(MDC, instancePath(w.endpoint(), id), modelJson(w, id, card, null));
  }

  static Advert adapterCard(Worker w, Worker.Adapter a, long id) {
    String card = "{\"display_name\":" + q(a.served()) + ",\"kv_cache_block_size\":16,\"lora\":{\"name\":"
        + q(a.loraName()) + ",\"max_gpu_lora_count\":4}" + roleFields(w) + "}";
    return new Advert(MDC, instancePath(w.endpoint(), id) + "/" + a.suffix(), modelJson(w, id, card, a.suffix()));
  }

  static Advert eventSource(Worker w, long id, long publisherId) {
    DynamoEndpointId e = w.endpoint();
    String endpointId = "{\"namespace\":" + q(e.namespace()) + ",\"component\":" + q(e.component()) + ",\"name\":"
        + q(e.endpoint()) + "}";
    String pub = Long.toUnsignedString(publisherId);
    String path = "namespace/" + e.namespace() + "/component/" + e.component() + "/endpoint/" + e.endpoint()
        + "/topic/kv-events/" + hex(publisherId);
    return new Advert(EVENT_SOURCES, path, "{\"type\":\"EventSource\",\"scope\":{\"kind\":\"endpoint\",\"endpoint\":"
        + endpointId + "},\"topic\":\"kv-events\",\"publisher_id\":" + pub + ",\"metadata\":{\"kv_state_endpoint\":"
        + endpointId + ",\"worker\":{\"worker_id\":" + Long.toUnsignedString(id) + ",\"dp_rank\":0},\"publisher_id\":"
        + pub + "}}");
  }

  private static String modelJson(Worker w, long id, String card, String suffix) {
    return "{\"type\":\"Model\"," + endpointFields(w.endpoint()) + ",\"instance_id\":" + Long.toUnsignedString(id)
        + ",\"card_json\":" + card + (suffix == null ? "" : ",\"model_suffix\":" + q(suffix)) + "}";
  }

  private static String endpointFields(DynamoEndpointId e) {
    return "\"namespace\":" + q(e.namespace()) + ",\"component\":" + q(e.component()) + ",\"endpoint\":"
        + q(e.endpoint());
  }

  private static String roleFields(Worker w) {
    StringBuilder b = new StringBuilder();
    if (w.role() != null) {
      b.append(",\"worker_type\":").append(q(role(w.role())));
    }
    if (!w.needs().isEmpty()) {
      b.append(",\"needs\":[").append(w.needs().stream()
          .map(alt -> "[" + alt.stream().map(r -> q(role(r))).collect(Collectors.joining(",")) + "]")
          .collect(Collectors.joining(","))).append(']');
    }
    return b.toString();
  }

  private static String role(WorkerRole r) {
    return r.name().toLowerCase(Locale.ROOT);
  }

  /** A JSON string of plain text (the fixtures use printable ASCII without quotes or backslashes). */
  static String q(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        throw new IllegalArgumentException("fixture text must be plain ASCII: " + s);
      }
    }
    return "\"" + s + "\"";
  }
}
