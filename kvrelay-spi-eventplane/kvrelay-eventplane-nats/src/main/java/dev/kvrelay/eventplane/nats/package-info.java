/**
 * NATS core event plane on jnats (plugins-wire §6, runtime-inputs §5.5): {@link
 * dev.kvrelay.eventplane.nats.NatsEventPlaneProvider} opens a {@link
 * dev.kvrelay.eventplane.nats.NatsEventPlane} from {@link dev.kvrelay.eventplane.nats.NatsSettings}; its
 * subscriptions decode message bodies with the SPI's {@code EventPlaneCodec} and report transport faults
 * through {@code EventListener.onFault}, counted in {@link dev.kvrelay.eventplane.nats.NatsPlaneStats}.
 */
@NullMarked
package dev.kvrelay.eventplane.nats;

import org.jspecify.annotations.NullMarked;
