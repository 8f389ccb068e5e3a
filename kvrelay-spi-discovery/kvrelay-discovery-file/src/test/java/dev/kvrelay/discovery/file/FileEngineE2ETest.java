package dev.kvrelay.discovery.file;

import dev.kvrelay.discovery.e2e.EngineDiscoveryContract;
import dev.kvrelay.discovery.e2e.WorkerStore;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The end-to-end contract through the engine on Dynamo's file KV store: every worker is its own independent Python
 * process ({@code src/test/python/file_kv_worker.py}, written from {@code plugins-wire.md} §8) with its own random
 * connection id as instance id, writing percent-encoded key files by temp file + hard link and keeping them alive.
 */
class FileEngineE2ETest extends EngineDiscoveryContract {
  private Path root;

  @Override
  protected String backendName() {
    return "file";
  }

  @Override
  protected WorkerStore openStore() throws Exception {
    Path scratch = Files.createTempDirectory("kvrelay-file-e2e");
    root = scratch.resolve("kv");
    return new PythonStore(root, scratch);
  }

  @Override
  protected DiscoveryBackend openBackend() throws Exception {
    return FileDiscovery.builder(root).open();
  }

  /** Not thread-safe: confined to the test thread; one Python file-KV process per worker. */
  static final class PythonStore implements WorkerStore {
    private final Path root;
    private final Path scratch;
    private final List<PythonWorker> processes = new ArrayList<>();

    PythonStore(Path root, Path scratch) {
      this.root = root;
      this.scratch = scratch;
    }

    @Override
    public WorkerProcess spawn(String name) throws Exception {
      PythonWorker py = PythonWorker.start(root, FileDiscovery.DEFAULT_TTL, scratch);
      processes.add(py);
      return new WorkerProcess() {
        @Override
        public long instanceId() {
          return py.id();
        }

        @Override
        public void put(String bucket, String path, String json) throws Exception {
          py.put(bucket, path, json);
        }

        @Override
        public void delete(String bucket, String path) throws Exception {
          py.delete(bucket, path);
        }
      };
    }

    /** Shuts every worker down cleanly (its files are deleted). */
    @Override
    public void close() throws Exception {
      for (PythonWorker py : processes) {
        try {
          py.shutdown();
        } finally {
          py.close();
        }
      }
    }
  }
}
