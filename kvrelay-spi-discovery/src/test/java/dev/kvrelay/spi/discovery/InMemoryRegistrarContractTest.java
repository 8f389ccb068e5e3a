package dev.kvrelay.spi.discovery;

import java.util.Map;

/** The registrar contract against {@link InMemoryDiscovery}; the store is read back with {@link InMemoryDiscovery#records()}. */
class InMemoryRegistrarContractTest extends DiscoveryRegistrarContract {
  @Override
  protected RegistrarWorld newWorld() {
    InMemoryDiscovery store = new InMemoryDiscovery();
    return new RegistrarWorld() {
      @Override
      public DiscoveryBackend backend() {
        return store;
      }

      @Override
      public Map<DiscoveryKey, DiscoveryRecord> stored() {
        return TestRecords.byKey(store.records());
      }

      @Override
      public void close() {
        store.close();
      }
    };
  }
}
