package dev.kvrelay.spi.eventplane;

/** The request-plane contract against {@link InMemoryRequestPlane}. */
class InMemoryRequestPlaneContractTest extends RequestPlaneContract {

  @Override
  protected RequestPlaneClient openClient() {
    return new InMemoryRequestPlane();
  }

  @Override
  protected RecoveryTarget startWorker(RequestPlaneClient client, long instanceId, ScriptedWorker worker) {
    ((InMemoryRequestPlane) client).register(instanceId, worker);
    return new RecoveryTarget(ENDPOINT, instanceId, TransportAddress.tcp("127.0.0.1:9999/generate"));
  }

  @Override
  protected RecoveryTarget unservedTarget(RequestPlaneClient client) {
    return new RecoveryTarget(ENDPOINT, 123_456_789, TransportAddress.tcp("127.0.0.1:9/generate"));
  }
}
