package dev.kvrelay.discovery.etcd;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Thread-safe: a loopback TCP forwarder in front of etcd, so a test can cut one client off (an outage)
 * while other clients keep writing to etcd directly. While cut, accepted connections are closed at once.
 */
final class TcpProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean cut;

  TcpProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t = new Thread(this::acceptLoop, "tcp-proxy-accept");
    t.setDaemon(true);
    t.start();
  }

  String endpoint() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  /** Drops every connection and refuses new ones until {@link #restore()}. */
  void cut() {
    cut = true;
    for (Socket s : sockets) {
      closeQuietly(s);
    }
    sockets.clear();
  }

  void restore() {
    cut = false;
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      if (cut) {
        closeQuietly(client);
        continue;
      }
      try {
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(client);
        sockets.add(upstream);
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
        // connection closed
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }, "tcp-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    cut();
  }
}
