package dev.kvrelay.discovery.file;

import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryBackendContract;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryKind;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryWorld;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.ModelRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The discovery backend contract against {@link FileDiscovery}, with the store written by the independent Python
 * worker (temp file + hard link / rename, percent-encoded names, keep-alive), as a Dynamo process writes it.
 */
class FileDiscoveryContractTest extends DiscoveryBackendContract {

  @Override
  protected DiscoveryWorld newWorld() throws Exception {
    Path scratch = Files.createTempDirectory("kvrelay-file-contract");
    Path root = scratch.resolve("kv");
    PythonWorker worker = PythonWorker.start(root, FileDiscovery.DEFAULT_TTL, scratch);
    FileDiscovery backend = FileDiscovery.builder(root).open();
    return new DiscoveryWorld() {
      private final Map<DiscoveryKey, DiscoveryRecord> written = new HashMap<>();

      @Override
      public DiscoveryBackend backend() {
        return backend;
      }

      @Override
      public void put(DiscoveryRecord record) throws Exception {
        worker.put(record.key().kind().bucket(), record.key().path(), DiscoveryCodec.encodeToString(record));
        written.put(record.key(), record);
      }

      @Override
      public void remove(DiscoveryKey key) throws Exception {
        if (written.remove(key) != null) {
          worker.delete(key.kind().bucket(), key.path());
        }
      }

      @Override
      public void updateTaints(ModelKey key, List<String> taints) throws Exception {
        DiscoveryRecord known = written.get(key);
        if (known instanceof ModelRecord) {
          put(((ModelRecord) known).withTaints(taints));
        }
      }

      @Override
      public void putMalformed(DiscoveryKind kind, String path, String rawValue) throws Exception {
        worker.put(kind.bucket(), path, rawValue);
      }

      @Override
      public void close() throws java.io.IOException {
        backend.close();
        try {
          worker.shutdown();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          worker.close();
        }
      }
    };
  }
}
