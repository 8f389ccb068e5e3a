package dev.kvrelay.discovery.kubernetes;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.PodResource;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * Immutable and thread-safe (fabric8's client is): the API operations of one {@link KubernetesDiscovery} in its
 * namespace — the EndpointSlices and Pods with the {@link KubernetesDiscovery#DISCOVERY_LABELS}, and every {@code
 * DynamoWorkerMetadata} CR (no selector, {@code runtime-inputs §3.2}).
 */
final class KubeApi {
  private final KubernetesClient client;
  private final String namespace;

  KubeApi(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  String namespace() {
    return namespace;
  }

  KubernetesSerialization serialization() {
    return client.getKubernetesSerialization();
  }

  FilterWatchListDeletable<EndpointSlice, EndpointSliceList, Resource<EndpointSlice>> slices() {
    return client.discovery().v1().endpointSlices().inNamespace(namespace)
        .withLabels(KubernetesDiscovery.DISCOVERY_LABELS);
  }

  FilterWatchListDeletable<Pod, PodList, PodResource> pods() {
    return client.pods().inNamespace(namespace).withLabels(KubernetesDiscovery.DISCOVERY_LABELS);
  }

  NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList,
      Resource<GenericKubernetesResource>> crs() {
    return client.genericKubernetesResources(WorkerMetadataResource.CONTEXT).inNamespace(namespace);
  }
}
