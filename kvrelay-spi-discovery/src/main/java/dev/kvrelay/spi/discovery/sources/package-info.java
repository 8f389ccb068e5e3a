/**
 * File-mode discovery scope ({@code --sources-file}, {@code producer.md} §8.2): the watched Dynamo namespaces come
 * from a polled JSON document {@code {"version":1,"connectionRevision"?,"sources":[{"namespace":…}]}}.
 *
 * <ul>
 *   <li>{@link dev.kvrelay.spi.discovery.sources.SourcesDocument}: the one parser and validator, and the
 *       document's revision (SHA-256 of its canonical JSON); every rejection is a typed {@link
 *       dev.kvrelay.spi.discovery.sources.SourcesException} that never echoes the file's contents.
 *   <li>{@link dev.kvrelay.spi.discovery.sources.SourcesFilePoller}: reads the file every second, hands valid
 *       changes to a {@link dev.kvrelay.spi.discovery.sources.SourcesListener}, keeps the last applied sources
 *       on an invalid update, and reports {@link dev.kvrelay.spi.discovery.sources.SourcesStatus}.
 * </ul>
 */
@NullMarked
package dev.kvrelay.spi.discovery.sources;

import org.jspecify.annotations.NullMarked;
