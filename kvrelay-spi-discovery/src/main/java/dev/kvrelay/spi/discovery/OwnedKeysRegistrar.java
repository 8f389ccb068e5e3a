package dev.kvrelay.spi.discovery;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Thread-safe (synchronized on the registrar; the hooks run under that lock): a helper for plugin authors, the
 * {@link DiscoveryRegistrar} that remembers the keys it wrote for one instance id and withdraws them when it
 * closes. A backend supplies only the store operations: {@link #write}, {@link #withdraw}, {@link #withdrawOnClose}
 * and its {@link #closedError()}; the open check, the owner rule ({@link DiscoveryRegistrar#requireOwnedBy}) and the
 * owned-key bookkeeping are here.
 *
 * <p>{@link #register} adds a key only after {@link #write} succeeded; {@link #deregister} answers false for a key
 * this registrar did not write, and forgets a key only after {@link #withdraw} succeeded. {@link #close} is
 * idempotent and hands the keys still owned to {@link #withdrawOnClose} once (not at all if there are none).
 */
public abstract class OwnedKeysRegistrar implements DiscoveryRegistrar {
  private final long instanceId;
  private final Set<DiscoveryKey> owned = new LinkedHashSet<>();
  private boolean closed;

  /** A registrar for {@code instanceId}, the id its endpoint and model keys must carry (unsigned 64-bit). */
  protected OwnedKeysRegistrar(long instanceId) {
    this.instanceId = instanceId;
  }

  @Override
  public final long instanceId() {
    return instanceId;
  }

  @Override
  public final synchronized void register(DiscoveryRecord record) throws DiscoveryException {
    checkOpen();
    DiscoveryRegistrar.requireOwnedBy(instanceId, record.key());
    write(record);
    owned.add(record.key());
  }

  @Override
  public final synchronized boolean deregister(DiscoveryKey key) throws DiscoveryException {
    checkOpen();
    if (!owned.contains(key)) {
      return false;
    }
    withdraw(key);
    owned.remove(key);
    return true;
  }

  @Override
  public final synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (!owned.isEmpty()) {
      withdrawOnClose(List.copyOf(owned));
    }
    owned.clear();
  }

  /** Writes {@code record} (its key already checked against {@link #instanceId()}) into the store. */
  protected abstract void write(DiscoveryRecord record) throws DiscoveryException;

  /** Removes {@code key}, which this registrar wrote, from the store. */
  protected abstract void withdraw(DiscoveryKey key) throws DiscoveryException;

  /**
   * Removes the keys still owned when the registrar closes (in the order they were first written); must not throw:
   * a failure is the backend's to log and count.
   */
  protected abstract void withdrawOnClose(List<DiscoveryKey> keys);

  /** The {@code CLOSED} error {@link #register} and {@link #deregister} throw once closed. */
  protected abstract DiscoveryException closedError();

  /** Whether the store behind this registrar is closed too (then calls fail as if the registrar were); false here. */
  protected boolean storeClosed() {
    return false;
  }

  private void checkOpen() throws DiscoveryException {
    if (closed || storeClosed()) {
      throw closedError();
    }
  }
}
