package dev.kvrelay.discovery.etcd;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Not thread-safe: confined to JUnit's class lifecycle. One real Debian etcd per test class, started before its
 * first test and stopped after its last ({@code @RegisterExtension static final EtcdServerExtension ETCD}); a
 * missing etcd skips the class, and fails it under {@code CI=true}.
 */
final class EtcdServerExtension implements BeforeAllCallback, AfterAllCallback {
  private @Nullable EtcdServer server;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    Assumptions.assumeTrue(EtcdServer.installed() || System.getenv("CI") != null,
        "Debian etcd-server / etcd-client not installed");
    server = EtcdServer.startNew();
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  /** The running server. */
  EtcdServer server() {
    return Objects.requireNonNull(server, "etcd is not running (beforeAll did not run or was skipped)");
  }
}
