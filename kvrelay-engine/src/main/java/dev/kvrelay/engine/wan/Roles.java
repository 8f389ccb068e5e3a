package dev.kvrelay.engine.wan;

import dev.kvrelay.api.WorkerRole;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;

/** Immutable and thread-safe: helpers for role lists rendered in enum order. */
final class Roles {
  private Roles() {}

  /** Copies {@code roles} into enum order; a repeated role is a caller bug. */
  static List<WorkerRole> sortedUnique(String field, Collection<WorkerRole> roles) {
    EnumSet<WorkerRole> set = EnumSet.noneOf(WorkerRole.class);
    for (WorkerRole role : roles) {
      if (!set.add(role)) {
        throw new IllegalArgumentException(field + " repeats role " + role.text());
      }
    }
    return List.copyOf(set);
  }
}
