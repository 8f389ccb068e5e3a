package dev.kvrelay.spi.discovery;

import dev.kvrelay.api.DynamoEndpointId;
import dev.kvrelay.api.EventScope;
import dev.kvrelay.api.WireText;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Immutable and thread-safe: what a watch covers ({@code producer.md} §8.1): a namespace allowlist or
 * every namespace, optionally narrowed by endpoint prefixes.
 *
 * <p>An endpoint prefix is split on {@code .}; segment i must equal part i of (namespace, component,
 * endpoint), so 1–3 segments match whole segments only and more than 3 never match: {@code
 * prod-a.backend} matches {@code prod-a.backend.generate} but not {@code prod-a.backend2.generate};
 * {@code production.back} does not match {@code production.backend}. No prefixes means everything in the
 * namespaces matches. Event channels and sources registered at namespace or component scope have fewer
 * parts than a longer prefix; they match when every part they have agrees with the prefix (they may
 * carry events for a matching endpoint).
 */
public final class DiscoveryScope {
  private static final int MAX_PREFIX_SEGMENTS = 3;

  private final boolean watchAll;
  private final SortedSet<String> namespaces;
  private final List<String> endpointPrefixes;
  private final List<String[]> prefixSegments;

  private DiscoveryScope(boolean watchAll, SortedSet<String> namespaces, List<String> endpointPrefixes) {
    this.watchAll = watchAll;
    this.namespaces = Collections.unmodifiableSortedSet(namespaces);
    this.endpointPrefixes = List.copyOf(endpointPrefixes);
    List<String[]> segments = new ArrayList<>();
    for (String p : endpointPrefixes) {
      segments.add(p.split("\\.", -1));
    }
    this.prefixSegments = List.copyOf(segments);
  }

  /** Every namespace, no prefix filter. */
  public static DiscoveryScope watchAll() {
    return new DiscoveryScope(true, new TreeSet<>(), List.of());
  }

  /**
   * Every namespace, narrowed by endpoint prefixes.
   *
   * @throws DiscoveryException (INVALID_CONFIGURATION) if a prefix is blank, has surrounding whitespace or repeats
   */
  public static DiscoveryScope watchAll(Collection<String> endpointPrefixes) throws DiscoveryException {
    return new DiscoveryScope(true, new TreeSet<>(), checkedPrefixes(endpointPrefixes, true, Set.of()));
  }

  /**
   * The given namespaces, narrowed by endpoint prefixes.
   *
   * @throws DiscoveryException (INVALID_CONFIGURATION) if there is no namespace, a namespace is blank, has
   *     surrounding whitespace or repeats, or a prefix is invalid or outside the namespaces (it must equal a
   *     namespace or start with {@code namespace + "."})
   */
  public static DiscoveryScope namespaces(Collection<String> namespaces, Collection<String> endpointPrefixes)
      throws DiscoveryException {
    if (namespaces.isEmpty()) {
      throw invalid("discovery needs at least one namespace unless watch_all is set");
    }
    TreeSet<String> set = new TreeSet<>();
    for (String ns : namespaces) {
      checkText("namespace", ns);
      if (!set.add(ns)) {
        throw invalid("namespace '" + ns + "' is repeated");
      }
    }
    return new DiscoveryScope(false, set, checkedPrefixes(endpointPrefixes, false, set));
  }

  /** The given namespaces, no prefix filter. */
  public static DiscoveryScope namespaces(Collection<String> namespaces) throws DiscoveryException {
    return namespaces(namespaces, List.of());
  }

  private static List<String> checkedPrefixes(Collection<String> prefixes, boolean watchAll, Set<String> namespaces)
      throws DiscoveryException {
    Set<String> seen = new HashSet<>();
    List<String> out = new ArrayList<>();
    for (String p : prefixes) {
      checkText("endpoint prefix", p);
      if (!seen.add(p)) {
        throw invalid("endpoint prefix '" + p + "' is repeated");
      }
      if (!watchAll && !insideNamespaces(p, namespaces)) {
        throw invalid("endpoint prefix " + p + " is outside the configured namespaces");
      }
      out.add(p);
    }
    return out;
  }

  private static boolean insideNamespaces(String prefix, Set<String> namespaces) {
    for (String ns : namespaces) {
      if (prefix.equals(ns) || prefix.startsWith(ns + ".")) {
        return true;
      }
    }
    return false;
  }

  private static void checkText(String what, String value) throws DiscoveryException {
    if (Names.isBlank(value)) {
      throw invalid(what + " must not be blank");
    }
    if (WireText.hasSurroundingWhitespace(value)) {
      throw invalid(what + " '" + value + "' must not have leading or trailing whitespace");
    }
    if (Names.problem(value) != null) {
      throw invalid(what + " " + Names.problem(value));
    }
  }

  private static DiscoveryException invalid(String message) {
    return new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION, message);
  }

  /** True if every namespace is watched. */
  public boolean isWatchAll() {
    return watchAll;
  }

  /** The allowlisted namespaces, sorted (empty when watching all). */
  public SortedSet<String> namespaces() {
    return namespaces;
  }

  /** The endpoint prefixes, in configuration order (empty = no filter). */
  public List<String> endpointPrefixes() {
    return endpointPrefixes;
  }

  /** True if the namespace is watched. */
  public boolean matchesNamespace(String namespace) {
    return watchAll || namespaces.contains(namespace);
  }

  /** True if the endpoint is in a watched namespace and passes the prefix filter. */
  public boolean matchesEndpoint(DynamoEndpointId endpoint) {
    return matchesNamespace(endpoint.namespace())
        && matchesParts(new String[] {endpoint.namespace(), endpoint.component(), endpoint.endpoint()});
  }

  /** True if the object with this key is inside the scope. */
  public boolean matches(DiscoveryKey key) {
    if (key instanceof EndpointKey endpointKey) {
      return matchesEndpoint(endpointKey.endpoint());
    }
    if (key instanceof ModelKey modelKey) {
      return matchesEndpoint(modelKey.endpoint());
    }
    EventScope scope = key instanceof EventChannelKey channelKey ? channelKey.scope() : ((EventSourceKey) key).scope();
    if (!matchesNamespace(scope.namespace())) {
      return false;
    }
    if (scope instanceof EventScope.Endpoint endpoint) {
      return matchesEndpoint(endpoint.endpoint());
    }
    if (scope instanceof EventScope.Component component) {
      return matchesParts(new String[] {scope.namespace(), component.component()});
    }
    return matchesParts(new String[] {scope.namespace()});
  }

  /** True if the record's key is inside the scope. */
  public boolean matches(DiscoveryRecord record) {
    return matches(record.key());
  }

  private boolean matchesParts(String[] parts) {
    if (prefixSegments.isEmpty()) {
      return true;
    }
    for (String[] segments : prefixSegments) {
      if (segments.length > MAX_PREFIX_SEGMENTS) {
        continue;
      }
      boolean ok = true;
      for (int i = 0; ok && i < Math.min(segments.length, parts.length); i++) {
        ok = segments[i].equals(parts[i]);
      }
      if (ok) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DiscoveryScope discoveryScope
        && watchAll == discoveryScope.watchAll
        && namespaces.equals(discoveryScope.namespaces)
        && endpointPrefixes.equals(discoveryScope.endpointPrefixes);
  }

  @Override
  public int hashCode() {
    return (watchAll ? 1 : 0) + 31 * namespaces.hashCode() + 961 * endpointPrefixes.hashCode();
  }

  @Override
  public String toString() {
    return (watchAll ? "watch-all" : "namespaces " + namespaces)
        + (endpointPrefixes.isEmpty() ? "" : ", endpoint prefixes " + endpointPrefixes);
  }
}
