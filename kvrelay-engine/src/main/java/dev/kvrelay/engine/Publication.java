package dev.kvrelay.engine;

import dev.kvrelay.engine.stream.SnapshotWatch;
import dev.kvrelay.engine.stream.WindowBroadcast;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Thread-safe (the watches and broadcasts are; the current catalog is volatile): the engine's publication outlets,
 * which the relay host publishes into on the control task and the engine's subscribers read from any thread: the
 * catalog and readiness snapshot watches and the pool-load and serving-load window broadcasts.
 */
final class Publication {
  final SnapshotWatch<CatalogUpdate> catalogWatch;
  final SnapshotWatch<TopologySnapshot> readinessWatch;
  final WindowBroadcast<KvPoolLoadUpdate> loadBroadcast;
  final WindowBroadcast<ServingLoadUpdate> servingLoadBroadcast;
  private final LoadPublisher loadPublisher;
  private volatile CatalogSnapshot catalog;

  /**
   * Outlets starting at the host's initial state.
   *
   * @param loadPublisher wraps the broadcasts' own load publisher (a test seam; normally the identity)
   */
  Publication(CatalogSnapshot catalog, TopologySnapshot readiness, KvPoolLoadUpdate poolLoad,
      ServingLoadUpdate servingLoad, int loadFanoutCapacity, UnaryOperator<LoadPublisher> loadPublisher) {
    this.catalog = catalog;
    this.catalogWatch = new SnapshotWatch<>(update(catalog));
    this.readinessWatch = new SnapshotWatch<>(readiness);
    this.loadBroadcast = new WindowBroadcast<>(loadFanoutCapacity, poolLoad, KvPoolLoadUpdate::windowSequence);
    this.servingLoadBroadcast =
        new WindowBroadcast<>(loadFanoutCapacity, servingLoad, ServingLoadUpdate::windowSequence);
    this.loadPublisher = Objects.requireNonNull(loadPublisher.apply(new BroadcastLoadPublisher()),
        "load publisher wrapper returned null");
  }

  /** The last published catalog. */
  CatalogSnapshot catalog() {
    return catalog;
  }

  /** Publishes a new catalog (control task). */
  void publishCatalog(CatalogSnapshot snapshot) {
    catalog = snapshot;
    catalogWatch.publish(update(snapshot));
  }

  /** Publishes a new readiness topology (control task). */
  void publishReadiness(TopologySnapshot snapshot) {
    readinessWatch.publish(snapshot);
  }

  /** Where the load ticker publishes its windows: the broadcasts, or a test seam's wrapper around them. */
  LoadPublisher loadPublisher() {
    return loadPublisher;
  }

  /** Ends every watch and broadcast (engine close). */
  void close() {
    catalogWatch.close();
    readinessWatch.close();
    loadBroadcast.close();
    servingLoadBroadcast.close();
  }

  private static CatalogUpdate update(CatalogSnapshot s) {
    return CatalogUpdate.ofDescriptors(s.identity(), s.revision(), s.pools());
  }

  /** Confined to the control task (the load ticker): the engine's own load publisher, its two window broadcasts. */
  private final class BroadcastLoadPublisher implements LoadPublisher {
    @Override
    public void poolLoad(KvPoolLoadUpdate window) {
      loadBroadcast.publish(window);
    }

    @Override
    public void servingLoad(ServingLoadUpdate window) {
      servingLoadBroadcast.publish(window);
    }
  }
}
