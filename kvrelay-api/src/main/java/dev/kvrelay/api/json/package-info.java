/**
 * The project's one JSON codec (RFC 8259), without dependencies: {@link dev.kvrelay.api.json.Json#parse}
 * reads a document into an immutable {@link dev.kvrelay.api.json.JsonValue} tree (numbers kept as their
 * exact text, duplicate object keys rejected, depth and size limited) and {@link
 * dev.kvrelay.api.json.Json#write} writes one compactly. Malformed input yields a typed {@link
 * dev.kvrelay.api.json.JsonException} carrying a reason and an offset, never an unchecked exception.
 */
@NullMarked
package dev.kvrelay.api.json;

import org.jspecify.annotations.NullMarked;
