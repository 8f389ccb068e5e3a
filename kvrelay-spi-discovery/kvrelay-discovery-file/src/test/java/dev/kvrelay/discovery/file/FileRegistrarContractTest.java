package dev.kvrelay.discovery.file;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.api.json.JsonValue;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryKind;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryRegistrarContract;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The registrar contract against the file store's registration (a Dynamo process's connection id, hard-link publish);
 * the store is read back by the independent Python worker's {@code read} command, which decodes the file names itself.
 */
class FileRegistrarContractTest extends DiscoveryRegistrarContract {

  @Override
  protected RegistrarWorld newWorld() throws Exception {
    Path scratch = Files.createTempDirectory("kvrelay-file-registrar");
    Path root = scratch.resolve("kv");
    PythonWorker reader = PythonWorker.start(root, FileDiscovery.DEFAULT_TTL, scratch);
    FileDiscovery backend = FileDiscovery.builder(root).open();
    return new RegistrarWorld() {
      @Override
      public DiscoveryBackend backend() {
        return backend;
      }

      @Override
      public Map<DiscoveryKey, DiscoveryRecord> stored() throws Exception {
        Map<DiscoveryKey, DiscoveryRecord> out = new LinkedHashMap<>();
        for (DiscoveryKind kind : DiscoveryKind.values()) {
          String reply = reader.call(JsonObject.builder().put("op", "read").put("bucket", kind.bucket()).build());
          JsonObject files = (JsonObject) Json.parse(reply);
          for (Map.Entry<String, JsonValue> e : files.members().entrySet()) {
            // the reader names each file by its decoded key, which (as in Dynamo) carries the bucket
            String path = e.getKey().startsWith(kind.bucket() + "/")
                ? e.getKey().substring(kind.bucket().length() + 1) : e.getKey();
            DiscoveryRecord r = DiscoveryCodec.decodeAt(kind, path,
                ((JsonString) e.getValue()).value().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            out.put(r.key(), r);
          }
        }
        return out;
      }

      @Override
      public void close() throws Exception {
        backend.close();
        try {
          reader.shutdown();
        } finally {
          reader.close();
        }
      }
    };
  }
}
