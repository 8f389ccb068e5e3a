/**
 * The {@code file} discovery backend ({@code plugins-wire §8}): {@link dev.kvrelay.discovery.file.FileDiscovery}
 * watches the directory tree Dynamo workers write without etcd (one percent-encoded file per key in each bucket
 * directory, the raw {@code DiscoveryInstance} JSON as its content, mtime liveness), and {@link
 * dev.kvrelay.discovery.file.FileKvRegistration} publishes the relay's own records into it.
 */
@NullMarked
package dev.kvrelay.discovery.file;

import org.jspecify.annotations.NullMarked;
