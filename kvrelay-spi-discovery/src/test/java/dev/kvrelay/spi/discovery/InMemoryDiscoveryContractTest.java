package dev.kvrelay.spi.discovery;

import java.util.List;

/** The backend contract, run against the in-memory provider. */
class InMemoryDiscoveryContractTest extends DiscoveryBackendContract {

  @Override
  protected DiscoveryWorld newWorld() {
    InMemoryDiscovery store = new InMemoryDiscovery();
    return new DiscoveryWorld() {
      @Override
      public DiscoveryBackend backend() {
        return store;
      }

      @Override
      public void put(DiscoveryRecord record) {
        store.put(record);
      }

      @Override
      public void remove(DiscoveryKey key) {
        store.remove(key);
      }

      @Override
      public void updateTaints(ModelKey key, List<String> taints) {
        store.updateTaints(key, taints);
      }

      @Override
      public void putMalformed(DiscoveryKind kind, String path, String rawValue) {
        if (store.putJson(kind, path, rawValue).isEmpty()) {
          throw new AssertionError("value was not malformed: " + rawValue);
        }
      }

      @Override
      public boolean supportsOutage() {
        return true;
      }

      @Override
      public void beginOutage() {
        store.beginOutage();
      }

      @Override
      public void endOutage() {
        store.simulateResync();
      }

      @Override
      public void close() {
        store.close();
      }
    };
  }
}
