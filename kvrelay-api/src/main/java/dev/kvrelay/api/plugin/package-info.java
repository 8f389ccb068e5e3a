/**
 * The plugin contract shared by every kvrelay service-provider interface (discovery backends, event
 * planes, request planes): a provider names itself and the artifact that ships it, says whether it can
 * run here, and is found through {@link java.util.ServiceLoader} by a {@link PluginRegistry}.
 */
@NullMarked
package dev.kvrelay.api.plugin;

import org.jspecify.annotations.NullMarked;
