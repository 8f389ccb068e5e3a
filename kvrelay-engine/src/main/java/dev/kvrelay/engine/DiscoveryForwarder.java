package dev.kvrelay.engine;

import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.ModelKey;
import java.util.List;

/**
 * Confined to the discovery watch's delivery thread: hands every callback, in order, to the relay host on the
 * control task. A watch that replaces another (file mode) hands its first state over as a resync, which the host
 * diffs.
 */
final class DiscoveryForwarder implements DiscoveryListener {
  private final ControlTask control;
  private final RelayHost host;
  private final boolean firstWatch;

  /** @param firstWatch true for the engine's first watch (its first state is a snapshot), false for a replacement */
  DiscoveryForwarder(ControlTask control, RelayHost host, boolean firstWatch) {
    this.control = control;
    this.host = host;
    this.firstWatch = firstWatch;
  }

  @Override
  public void onSnapshot(List<DiscoveryRecord> records) {
    control.execute(() -> {
      if (firstWatch) {
        host.onSnapshot(records);
      } else {
        host.onResync(records);
      }
    });
  }

  @Override
  public void onUpserted(DiscoveryRecord record) {
    control.execute(() -> host.onUpserted(record));
  }

  @Override
  public void onRemoved(DiscoveryKey key) {
    control.execute(() -> host.onRemoved(key));
  }

  @Override
  public void onModelTaintsUpdated(ModelKey key, List<String> taints) {
    control.execute(() -> host.onModelTaintsUpdated(key, taints));
  }

  @Override
  public void onResync(List<DiscoveryRecord> records) {
    control.execute(() -> host.onResync(records));
  }

  @Override
  public void onError(DiscoveryException error) {
    control.execute(() -> host.onError(error));
  }
}
