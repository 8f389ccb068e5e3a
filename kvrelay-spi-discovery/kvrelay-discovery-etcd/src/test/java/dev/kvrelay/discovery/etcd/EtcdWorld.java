package dev.kvrelay.discovery.etcd;

import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryDecodeException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryKind;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import dev.kvrelay.spi.discovery.DiscoveryWorld;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.DeleteOption;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Not thread-safe: driven by one test. A contract-test world over a real etcd: the store is written by
 * the world's own jetcd client (as a worker would), the backend under test connects through a {@link
 * TcpProxy}, so an outage cuts only the backend off; ending the outage compacts the store first, so the
 * backend's resumed watch finds its revision compacted and must resync.
 */
final class EtcdWorld implements DiscoveryWorld {
  final EtcdServer etcd;
  final TcpProxy proxy;
  final Client writer;
  final EtcdDiscovery backend;

  EtcdWorld(EtcdServer etcd, Map<String, String> extraSettings) throws Exception {
    this.etcd = etcd;
    this.proxy = new TcpProxy(etcd.clientPort());
    this.writer = Client.builder().endpoints(etcd.endpoint()).build();
    writer.getKVClient().delete(bytes("v1/"), DeleteOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS);
    Map<String, String> settings = new HashMap<>(extraSettings);
    settings.put(EtcdSettings.ENDPOINTS, proxy.endpoint());
    settings.putIfAbsent(EtcdSettings.STARTUP_CONNECT_TIMEOUT, "20");
    this.backend = (EtcdDiscovery) new EtcdDiscoveryProvider().open(DiscoverySettings.of(settings));
  }

  static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  @Override
  public DiscoveryBackend backend() {
    return backend;
  }

  @Override
  public void put(DiscoveryRecord record) throws Exception {
    writer.getKVClient().put(bytes(record.key().storageKey()), bytes(DiscoveryCodec.encodeToString(record)))
        .get(10, TimeUnit.SECONDS);
  }

  @Override
  public void remove(DiscoveryKey key) throws Exception {
    writer.getKVClient().delete(bytes(key.storageKey())).get(10, TimeUnit.SECONDS);
  }

  @Override
  public void updateTaints(ModelKey key, List<String> taints) throws Exception {
    List<KeyValue> kvs = writer.getKVClient().get(bytes(key.storageKey())).get(10, TimeUnit.SECONDS).getKvs();
    if (kvs.isEmpty()) {
      return;
    }
    ModelRecord card = (ModelRecord) decode(kvs.get(0));
    put(card.withTaints(taints));
  }

  private static DiscoveryRecord decode(KeyValue kv) throws DiscoveryDecodeException {
    return DiscoveryCodec.decode(kv.getValue().getBytes());
  }

  @Override
  public void putMalformed(DiscoveryKind kind, String path, String rawValue) throws Exception {
    writer.getKVClient().put(bytes(kind.bucket() + "/" + path), bytes(rawValue)).get(10, TimeUnit.SECONDS);
  }

  @Override
  public boolean supportsOutage() {
    return true;
  }

  @Override
  public void beginOutage() {
    proxy.cut();
  }

  @Override
  public void endOutage() throws Exception {
    long revision = writer.getKVClient().get(bytes("v1/")).get(10, TimeUnit.SECONDS).getHeader().getRevision();
    writer.getKVClient().compact(revision).get(10, TimeUnit.SECONDS);
    proxy.restore();
  }

  @Override
  public void close() throws java.io.IOException {
    backend.close();
    writer.close();
    proxy.close();
  }
}
