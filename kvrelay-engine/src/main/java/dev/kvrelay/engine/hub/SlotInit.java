package dev.kvrelay.engine.hub;

import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Guarded by its {@link HubSlot}'s monitor (not thread-safe on its own; every instance method is called with that
 * monitor held): the lazy-initialisation bookkeeping of one slot, namely the actor lease being initialised, whether
 * the slot holds the registry's init permit, and the future that admissions wait on until the mirror is installed.
 *
 * <p>{@link #settle} and {@link #finish} are static and run after the monitor is released: {@code settle} gives a
 * taken permit back to the registry and fails the taken waiters PUBLICATION_UNAVAILABLE; {@code finish} completes
 * the waiters of an initialisation that ended.
 */
final class SlotInit {
  private long pendingLease;
  private boolean permitHeld;
  private @Nullable CompletableFuture<Void> future;

  /** Starts an initialisation under {@code lease} with the init permit taken; returns the waiters' future. */
  CompletableFuture<Void> start(long lease) {
    permitHeld = true;
    pendingLease = lease;
    CompletableFuture<Void> f = new CompletableFuture<>();
    future = f;
    return f;
  }

  /** The lease being initialised (the last one started or restarted). */
  long pendingLease() {
    return pendingLease;
  }

  /** The initialisation goes on under a fresh {@code lease} (the early publications overflowed). */
  void restart(long lease) {
    pendingLease = lease;
  }

  /** The waiters' future, or null when no initialisation is waited on. */
  @Nullable CompletableFuture<Void> future() {
    return future;
  }

  /** Takes the waiters' future (null if none); the caller completes it after the monitor is released. */
  @Nullable CompletableFuture<Void> takeFuture() {
    CompletableFuture<Void> f = future;
    future = null;
    return f;
  }

  /** Takes the init permit: true if it was held (the caller then releases it after the monitor is released). */
  boolean takePermit() {
    boolean held = permitHeld;
    permitHeld = false;
    return held;
  }

  /**
   * With no lock held: releases the init permit if {@code hadPermit}, then fails {@code waiters} (if any)
   * PUBLICATION_UNAVAILABLE with {@code message}.
   */
  static void settle(HubRegistry registry, boolean hadPermit, @Nullable CompletableFuture<Void> waiters,
      String message) {
    if (hadPermit) {
      registry.releaseInitPermit();
    }
    if (waiters != null) {
      waiters.completeExceptionally(new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, message));
    }
  }

  /**
   * With no lock held: completes the taken {@code waiters} (if any) normally when {@code failure} is null, else
   * exceptionally with {@code failure} and {@code message}.
   */
  static void finish(@Nullable CompletableFuture<Void> waiters, @Nullable RelayErrorReason failure, String message) {
    if (waiters == null) {
      return;
    }
    if (failure == null) {
      waiters.complete(null);
    } else {
      waiters.completeExceptionally(new RelayException(failure, message));
    }
  }
}
