/**
 * Discovery SPI ({@code runtime-inputs.md} §1–§4, {@code producer.md} §2 and §8): what a discovery backend
 * (Kubernetes, etcd, a static file, or the in-memory {@code mem} store) tells the engine, and how.
 *
 * <ul>
 *   <li>Values: {@link dev.kvrelay.spi.discovery.DiscoveryKey} (with the §1.4 path forms), {@link
 *       dev.kvrelay.spi.discovery.DiscoveryRecord} (endpoint instance, model card, KV event source, event
 *       channel), {@link dev.kvrelay.spi.discovery.ModelCard}.
 *   <li>{@link dev.kvrelay.spi.discovery.DiscoveryCodec}: the {@code DiscoveryInstance} JSON and the
 *       Kubernetes {@code spec.data} maps to and from records; bad entries are typed {@link
 *       dev.kvrelay.spi.discovery.DiscoveryDecodeException}s.
 *   <li>Watching: {@link dev.kvrelay.spi.discovery.DiscoveryBackend#watch} delivers a snapshot, then
 *       changes, to a {@link dev.kvrelay.spi.discovery.DiscoveryListener} for a {@link
 *       dev.kvrelay.spi.discovery.DiscoveryScope}.
 *   <li>Providers: {@link dev.kvrelay.spi.discovery.DiscoveryProviders} finds {@link
 *       dev.kvrelay.spi.discovery.DiscoveryProvider}s through {@link java.util.ServiceLoader}.
 *   <li>Registering: a {@link dev.kvrelay.spi.discovery.DiscoveryRegistrar} writes a process's own records; a
 *       backend plugin can extend {@link dev.kvrelay.spi.discovery.OwnedKeysRegistrar} and supply only the store
 *       operations.
 * </ul>
 */
@NullMarked
package dev.kvrelay.spi.discovery;

import org.jspecify.annotations.NullMarked;
