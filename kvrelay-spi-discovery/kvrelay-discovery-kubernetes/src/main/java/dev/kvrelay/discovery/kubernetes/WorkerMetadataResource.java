package dev.kvrelay.discovery.kubernetes;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonException;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.EndpointRecord;
import dev.kvrelay.spi.discovery.ModelRecord;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: the {@code DynamoWorkerMetadata} custom resource ({@code runtime-inputs §3.1}):
 * its coordinates, reading one into a {@link WorkerCr}, and building the relay's own for server-side apply.
 */
public final class WorkerMetadataResource {
  /** API group. */
  public static final String GROUP = "nvidia.com";
  /** API version. */
  public static final String VERSION = "v1alpha1";
  /** {@code apiVersion} field. */
  public static final String API_VERSION = GROUP + "/" + VERSION;
  /** Kind. */
  public static final String KIND = "DynamoWorkerMetadata";
  /** Plural resource name. */
  public static final String PLURAL = "dynamoworkermetadatas";
  /** The field manager of server-side apply ({@code runtime-inputs §3.5}). */
  public static final String FIELD_MANAGER = "dynamo-worker";

  /** The resource's coordinates for fabric8's generic client (namespaced, no discovery round trip). */
  public static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
      .withGroup(GROUP).withVersion(VERSION).withKind(KIND).withPlural(PLURAL).withNamespaced(true).build();

  private WorkerMetadataResource() {}

  /**
   * Reads a CR. A {@code spec.data} that is absent, null or not a valid object keeps {@code previous}'s
   * records when {@code previous} is the same incarnation (same uid); malformed entries of a valid object
   * are skipped and listed.
   */
  public static WorkerCr read(GenericKubernetesResource cr, @Nullable WorkerCr previous,
      KubernetesSerialization serialization) {
    ObjectMeta meta = cr.getMetadata();
    String name = Objects.requireNonNullElse(meta.getName(), "");
    String uid = Objects.requireNonNullElse(meta.getUid(), "");
    String rv = Objects.requireNonNullElse(meta.getResourceVersion(), "");
    Set<String> owners = new HashSet<>();
    if (meta.getOwnerReferences() != null) {
      for (OwnerReference o : meta.getOwnerReferences()) {
        if ("Pod".equals(o.getKind()) && o.getUid() != null && !o.getUid().isEmpty()) {
          owners.add(o.getUid());
        }
      }
    }
    List<DiscoveryRecord> lastValid = previous != null && previous.uid().equals(uid) ? previous.records() : null;
    Object spec = cr.getAdditionalProperties().get("spec");
    Object data = spec instanceof Map ? ((Map<?, ?>) spec).get("data") : null;
    if (!(data instanceof Map)) {
      return new WorkerCr(name, uid, rv, owners, lastValid, List.of(), false);
    }
    try {
      JsonValue json = Json.parse(serialization.asJson(data));
      DiscoveryCodec.WorkerMetadata decoded = DiscoveryCodec.decodeWorkerMetadata(json);
      return new WorkerCr(name, uid, rv, owners, decoded.records(), decoded.skipped(), true);
    } catch (JsonException | DiscoveryDecodeException e) {
      return new WorkerCr(name, uid, rv, owners, lastValid, List.of(), false);
    }
  }

  /**
   * Endpoint and model records of {@code cr} whose instance id is not {@link InstanceIdHash#instanceId} of
   * the CR name (the §3.4 cross-check; such records are still used, since ids come from {@code spec.data}).
   */
  public static int hashMismatches(WorkerCr cr) {
    if (cr.records() == null) {
      return 0;
    }
    long expected = InstanceIdHash.instanceId(cr.name());
    int n = 0;
    for (DiscoveryRecord r : cr.records()) {
      long id = r instanceof EndpointRecord endpointRecord ? endpointRecord.key().instanceId()
          : r instanceof ModelRecord modelRecord ? modelRecord.key().instanceId() : expected;
      if (id != expected) {
        n++;
      }
    }
    return n;
  }

  /**
   * The relay's own CR as a complete object for server-side apply: name, namespace, one ownerReference to
   * its pod ({@code controller = false}, {@code blockOwnerDeletion = false}) and the whole {@code spec.data}.
   */
  public static GenericKubernetesResource ownCr(String crName, String namespace, String podName, String podUid,
      Collection<? extends DiscoveryRecord> records, KubernetesSerialization serialization) {
    JsonObject owner = JsonObject.builder()
        .put("apiVersion", "v1").put("kind", "Pod").put("name", podName).put("uid", podUid)
        .put("controller", false).put("blockOwnerDeletion", false).build();
    JsonObject object = JsonObject.builder()
        .put("apiVersion", API_VERSION)
        .put("kind", KIND)
        .put("metadata", JsonObject.builder().put("name", crName).put("namespace", namespace)
            .put("ownerReferences", new JsonArray(List.of(owner))).build())
        .put("spec", JsonObject.builder().put("data", DiscoveryCodec.encodeWorkerMetadata(records)).build())
        .build();
    return serialization.unmarshal(Json.write(object), GenericKubernetesResource.class);
  }
}
