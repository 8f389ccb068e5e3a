/** Discovery backend {@code etcd}. */
@NullMarked
package dev.kvrelay.discovery.etcd;

import org.jspecify.annotations.NullMarked;
