/**
 * Kubernetes discovery ({@code runtime-inputs §3}, {@code plugins-wire §5}): {@link
 * dev.kvrelay.discovery.kubernetes.KubernetesDiscovery} lists and watches EndpointSlices (or Pods) and
 * {@code DynamoWorkerMetadata} CRs in the relay's own namespace, joins ready pods to their CRs and
 * delivers the records through the discovery SPI; it also registers the relay's own CR by server-side
 * apply. {@link dev.kvrelay.discovery.kubernetes.KubernetesDiscoveryProvider} is the {@code kubernetes}
 * provider.
 */
@NullMarked
package dev.kvrelay.discovery.kubernetes;

import org.jspecify.annotations.NullMarked;
