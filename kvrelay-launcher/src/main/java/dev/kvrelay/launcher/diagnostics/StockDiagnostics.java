package dev.kvrelay.launcher.diagnostics;

import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.launcher.health.HealthSource;
import dev.kvrelay.requestplane.tcp.TcpRequestPlaneConfig;
import dev.kvrelay.requestplane.tcp.TcpRequestServer;
import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryRegistrar;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;

/**
 * Thread-safe (close is idempotent and may race a concurrent read of {@link #endpoints()}): the stock relay's
 * diagnostic endpoints, owning what they run on: a TCP request-plane server and a registration in the relay's
 * discovery backend. The server binds {@code DYN_TCP_RESPONSE_STREAM_HOST} (the host the relay's request plane
 * answers on) and {@code DYN_TCP_RPC_PORT}; unset, the port is OS-assigned (plugins-wire §3: never assume 9999;
 * the advertised address is the bound one).
 */
public final class StockDiagnostics implements AutoCloseable {
  /** The worker request server's port variable (runtime-inputs §9). */
  public static final String RPC_PORT = "DYN_TCP_RPC_PORT";

  private final TcpRequestServer server;
  private final DiscoveryRegistrar registrar;
  private final DiagnosticEndpoints endpoints;

  private StockDiagnostics(TcpRequestServer server, DiscoveryRegistrar registrar, DiagnosticEndpoints endpoints) {
    this.server = server;
    this.registrar = registrar;
    this.endpoints = endpoints;
  }

  /**
   * Serves and advertises {@code health}, {@code stats} and {@code snapshot}.
   *
   * @param env the process environment ({@code DYN_TCP_*})
   * @param discovery the relay's discovery backend (its {@link DiscoveryBackend#registrar()} advertises them)
   * @param namespace {@code DYN_NAMESPACE}
   * @param health the health object the system server answers too
   * @throws IOException if the server cannot bind, or discovery refuses the records (the message names which)
   * @throws IllegalArgumentException if a {@code DYN_TCP_*} value is invalid (the message names it)
   */
  public static StockDiagnostics start(RelayEngine engine, Map<String, String> env, DiscoveryBackend discovery,
      String namespace, HealthSource health) throws IOException {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(discovery, "discovery");
    int port = port(env);
    TcpRequestServer server = TcpRequestServer.start(
        TcpRequestServer.Settings.of(TcpRequestPlaneConfig.fromProperties(env), port));
    DiscoveryRegistrar registrar = null;
    try {
      registrar = discovery.registrar();
      DiagnosticEndpoints endpoints = DiagnosticEndpoints.start(engine, server, registrar, namespace, health);
      return new StockDiagnostics(server, registrar, endpoints);
    } catch (DiscoveryException e) {
      if (registrar != null) {
        registrar.close();
      }
      server.close();
      throw new IOException("diagnostic endpoints: discovery refused their registration: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      if (registrar != null) {
        registrar.close();
      }
      server.close();
      throw e;
    }
  }

  private static int port(Map<String, String> env) {
    String v = env.get(RPC_PORT);
    if (v == null || v.isBlank()) {
      return 0;
    }
    try {
      int p = Integer.parseInt(v.trim());
      if (p < 0 || p > 65535) {
        throw new NumberFormatException();
      }
      return p;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(RPC_PORT + " must be a port in 0..65535, got '" + v + "'");
    }
  }

  /** The served endpoints. */
  public DiagnosticEndpoints endpoints() {
    return endpoints;
  }

  /** Withdraws the records, releases the registration and stops the server. Idempotent. */
  @Override
  public void close() {
    endpoints.close();
    registrar.close();
    server.close();
  }
}
