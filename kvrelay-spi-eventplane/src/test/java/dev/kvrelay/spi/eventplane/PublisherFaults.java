package dev.kvrelay.spi.eventplane;

/**
 * Thread-safe (each knob is synchronized on the publisher): the fault knobs of an {@link InMemoryEventPlane}
 * publisher, in the test-jar only, so a product jar never carries them. Engine and plugin tests lose, duplicate
 * and reorder messages with them.
 */
public final class PublisherFaults {
  private PublisherFaults() {}

  /** Drops the next {@code count} messages of {@code publisher} (their sequence numbers are still consumed: a gap). */
  public static void dropNext(InMemoryEventPlane.Publisher publisher, int count) {
    publisher.dropNext(count);
  }

  /** Delivers each of the next {@code count} messages of {@code publisher} twice. */
  public static void duplicateNext(InMemoryEventPlane.Publisher publisher, int count) {
    publisher.duplicateNext(count);
  }

  /** Holds back the next {@code count} messages of {@code publisher} until {@link #releaseHeld}. */
  public static void holdNext(InMemoryEventPlane.Publisher publisher, int count) {
    publisher.holdNext(count);
  }

  /** Delivers {@code publisher}'s held-back messages now, in the order they were published. */
  public static void releaseHeld(InMemoryEventPlane.Publisher publisher) {
    publisher.releaseHeld();
  }
}
