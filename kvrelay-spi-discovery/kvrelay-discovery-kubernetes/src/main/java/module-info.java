/**
 * The Kubernetes discovery backend, provider {@code kubernetes}: EndpointSlices (pod mode) or Pods
 * (container mode) joined with {@code DynamoWorkerMetadata} custom resources ({@code runtime-inputs §3}), on
 * fabric8 kubernetes-client.
 */
// fabric8 types are in the API (KubernetesDiscovery takes a KubernetesClient) and ship as automatic modules.
@SuppressWarnings("requires-transitive-automatic")
module dev.kvrelay.discovery.kubernetes {
  requires transitive dev.kvrelay.spi.discovery;
  requires transitive kubernetes.client.api;
  requires transitive kubernetes.model.core;
  requires kubernetes.model.common;
  requires kubernetes.model.discovery;
  requires org.slf4j;
  requires static org.jspecify;

  exports dev.kvrelay.discovery.kubernetes;

  provides dev.kvrelay.spi.discovery.DiscoveryProvider
      with dev.kvrelay.discovery.kubernetes.KubernetesDiscoveryProvider;
}
