package dev.kvrelay.eventplane.zmq;

import java.util.ArrayList;
import java.util.List;

/**
 * Not thread-safe: confined to one test method. The resources a test opened, closed in reverse order of opening
 * when JUnit closes the field ({@code @AutoClose}).
 */
final class Closer implements AutoCloseable {
  private final List<AutoCloseable> opened = new ArrayList<>();

  /** Registers {@code resource} to be closed after the test; returns it. */
  <T extends AutoCloseable> T add(T resource) {
    opened.add(resource);
    return resource;
  }

  @Override
  public void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
    opened.clear();
  }
}
