package dev.kvrelay.spi.discovery;

import java.util.List;

/**
 * Thread-safe as its delegate: a test listener that passes every callback on to another listener unchanged, for
 * tests to extend and override the one callback they want to disturb (throw from, or act on) while the delegate
 * (typically a {@link RecordingListener}) still sees the rest. Ships in this module's test-jar for the backend
 * plugins' tests.
 */
public class ForwardingListener implements DiscoveryListener {
  private final DiscoveryListener delegate;

  /** Forwards to {@code delegate}. */
  public ForwardingListener(DiscoveryListener delegate) {
    this.delegate = delegate;
  }

  @Override
  public void onSnapshot(List<DiscoveryRecord> records) {
    delegate.onSnapshot(records);
  }

  @Override
  public void onUpserted(DiscoveryRecord record) {
    delegate.onUpserted(record);
  }

  @Override
  public void onRemoved(DiscoveryKey key) {
    delegate.onRemoved(key);
  }

  @Override
  public void onModelTaintsUpdated(ModelKey key, List<String> taints) {
    delegate.onModelTaintsUpdated(key, taints);
  }

  @Override
  public void onResync(List<DiscoveryRecord> records) {
    delegate.onResync(records);
  }

  @Override
  public void onError(DiscoveryException error) {
    delegate.onError(error);
  }
}
