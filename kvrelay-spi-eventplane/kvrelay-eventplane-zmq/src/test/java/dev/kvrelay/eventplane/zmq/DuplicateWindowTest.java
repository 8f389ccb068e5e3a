package dev.kvrelay.eventplane.zmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The multi-broker de-duplication window (the sequence rule itself is the SPI's PublisherSequencesTest). */
class DuplicateWindowTest {

  @Test
  void aPairSeenBeforeIsRepeatedUntilItLeavesTheWindow() {
    DuplicateWindow w = new DuplicateWindow(2);
    assertThat(w.repeated(1, 0)).isFalse();
    assertThat(w.repeated(1, 0)).as("the second broker's copy").isTrue();
    assertThat(w.repeated(2, 0)).as("another publisher, same sequence").isFalse();
    assertThat(w.repeated(1, 1)).isFalse(); // (1, 0) is now the oldest and leaves
    assertThat(w.repeated(1, 0)).as("forgotten: seen as new").isFalse();
    assertThat(w.repeated(1, 1)).isTrue();
    assertThatThrownBy(() -> new DuplicateWindow(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
