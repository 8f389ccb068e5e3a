package dev.kvrelay.discovery.file;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.plugin.PluginRegistry;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryProvider;
import dev.kvrelay.spi.discovery.DiscoveryProviders;
import dev.kvrelay.spi.discovery.DiscoverySettings;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileDiscoveryProviderTest {
  @TempDir Path dir;

  @Test
  void serviceLoaderFindsTheFileProviderUnderItsKnownArtifact() throws Exception {
    PluginRegistry<DiscoveryProvider> registry = DiscoveryProviders.load();
    DiscoveryProvider p = registry.byName("file");
    assertThat(p).isInstanceOf(FileDiscoveryProvider.class);
    assertThat(p.artifact()).isEqualTo(DiscoveryProviders.KNOWN_ARTIFACTS.get("file"));
    try (DiscoveryBackend b = p.open(DiscoverySettings.of(Map.of("DYN_FILE_KV", dir.resolve("kv").toString())))) {
      assertThat(b).isInstanceOf(FileDiscovery.class);
      assertThat(((FileDiscovery) b).root()).isEqualTo(dir.resolve("kv"));
      assertThat(((FileDiscovery) b).ttl()).isEqualTo(FileDiscovery.DEFAULT_TTL);
    }
  }

  @Test
  void withoutDynFileKvTheRootIsDynamoStoreKvInTheTemporaryDirectory() throws Exception {
    assertThat(FileDiscoveryProvider.root(DiscoverySettings.of(Map.of("TMPDIR", "/var/tmp/x"))))
        .isEqualTo(Path.of("/var/tmp/x/dynamo_store_kv"));
    assertThat(FileDiscoveryProvider.root(DiscoverySettings.empty())).isEqualTo(Path.of("/tmp/dynamo_store_kv"));
    assertThat(FileDiscoveryProvider.root(DiscoverySettings.of(Map.of("DYN_FILE_KV", "", "TMPDIR", "/t"))))
        .isEqualTo(Path.of("/t/dynamo_store_kv"));
  }
}
