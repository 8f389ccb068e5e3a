package dev.kvrelay.launcher.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.api.json.JsonArray;
import dev.kvrelay.api.json.JsonObject;
import dev.kvrelay.api.json.JsonString;
import dev.kvrelay.discovery.file.FileDiscovery;
import dev.kvrelay.discovery.file.FileKvRegistration;
import dev.kvrelay.engine.DiagnosticsFixture;
import dev.kvrelay.requestplane.tcp.TcpRequestPlaneConfig;
import dev.kvrelay.requestplane.tcp.TcpRequestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not thread-safe: confined to the JUnit thread. The diagnostic endpoints advertised through a real discovery
 * backend, Dynamo's file KV store ({@code DYN_DISCOVERY_BACKEND=file}, plugins-wire §8): the Python caller reads the
 * store's directory itself (percent-encoded key files, raw DiscoveryInstance JSON), takes the advertised transports
 * and calls them; closing removes the key files.
 */
class FileStoreAdvertisementTest {
  @TempDir Path dir;

  @Test
  void aPythonReaderOfTheFileStoreFindsAndCallsTheAdvertisedEndpoints() throws Exception {
    Path root = Files.createDirectories(dir.resolve("dynamo_store_kv"));
    try (DiagnosticsFixture fixture = new DiagnosticsFixture("us-west");
        FileDiscovery store = FileDiscovery.builder(root).open();
        TcpRequestServer server = TcpRequestServer.start(TcpRequestServer.Settings.of(TcpRequestPlaneConfig.loopback(), 0))) {
      FileKvRegistration registration = store.register();
      DiagnosticEndpoints diag = DiagnosticEndpoints.start(fixture.engine(), server,
          registration, "dynamo");
      String component = "kv_dc_relay_568efa6a0ce59a3d6e78a00a6c0ac73d"; // producer.md §7.5 example for us-west
      List<String> lines = PythonCaller.run(dir, "discover", root.toString(), "dynamo", component);
      assertThat(lines).hasSize(4).last().isEqualTo("DONE");
      String iid = Long.toHexString(registration.connectionId());
      String prefix = server.hostPort() + "/" + iid + "/dynamo/" + component + "/";
      assertThat(lines.subList(0, 3)).containsExactly(
          "ENDPOINT health " + prefix + "health " + iid + " json",
          "ENDPOINT snapshot " + prefix + "snapshot " + iid + " json",
          "ENDPOINT stats " + prefix + "stats " + iid + " json");
      String health = lines.get(0).split(" ")[2];
      String stats = lines.get(2).split(" ")[2];
      List<JsonObject> r = PythonCaller.call(dir, health, "{\"text\":\"health\"}", stats, "{}");
      JsonObject h = (JsonObject) DiagnosticEndpointsTest.item(r.get(0));
      assertThat(h.get("healthy")).isEqualTo(Json.parse("true"));
      assertThat(h.get("endpoint_count")).isEqualTo(Json.parse("0"));
      JsonObject s = (JsonObject) DiagnosticEndpointsTest.item(r.get(1));
      assertThat(DiagnosticEndpointsTest.obj(s, "identity").get("dc_id")).isEqualTo(new JsonString("us-west"));
      assertThat(((JsonArray) s.get("endpoints")).size()).isZero();

      diag.close();
      List<String> after = PythonCaller.run(dir, "discover", root.toString(), "dynamo", component);
      assertThat(after).containsExactly("DONE");
    }
  }
}
