/**
 * Identities, formats, roles, registrations and query semantics shared by the producer, the consumer
 * and the transports, together with the validation that the wire contract demands of each.
 *
 * <p>Every factory validates. A value that breaks the contract raises {@link WireValidationException}
 * whose {@link WireValidationException.Kind} tells a malformed value (reject) from an unsupported one
 * (a consumer quarantines the entry instead of reading it with default semantics).
 */
@NullMarked
package dev.kvrelay.api;

import org.jspecify.annotations.NullMarked;
