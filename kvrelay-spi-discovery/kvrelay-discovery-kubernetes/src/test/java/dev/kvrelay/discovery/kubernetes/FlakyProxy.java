package dev.kvrelay.discovery.kubernetes;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Thread-safe: a TCP proxy on 127.0.0.1 in front of the mock API server, so a test can cut the backend's
 * connections ({@link #cut()}: open connections are reset and new ones closed at once) and let it back
 * ({@link #restore()}), or just drop the open connections ({@link #dropConnections()}).
 */
final class FlakyProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final InetSocketAddress target;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean down;
  private volatile boolean closed;

  FlakyProxy(String targetHost, int targetPort) throws IOException {
    this.target = new InetSocketAddress(targetHost, targetPort);
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "flaky-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return;
      }
      if (down) {
        closeQuietly(client);
        continue;
      }
      try {
        Socket upstream = new Socket(target.getAddress(), target.getPort());
        open.add(client);
        open.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16384];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) >= 0) {
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // connection ended
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        open.remove(from);
        open.remove(to);
      }
    }, "flaky-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  /** Resets every open connection and refuses new ones until {@link #restore()}. */
  void cut() {
    down = true;
    dropConnections();
  }

  /** Accepts connections again. */
  void restore() {
    down = false;
  }

  /** Resets every open connection (new ones are accepted). */
  void dropConnections() {
    for (Socket s : open) {
      closeQuietly(s);
    }
    open.clear();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.setSoLinger(true, 0);
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    listener.close();
    dropConnections();
  }
}
