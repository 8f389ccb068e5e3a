package dev.kvrelay.spi.eventplane;

import java.util.HexFormat;

/** Stateless and thread-safe: hex helpers for golden bytes written with spaces and line breaks. */
final class Hex {
  private Hex() {}

  static byte[] bytes(String hex) {
    return HexFormat.of().parseHex(hex.replaceAll("\\s+", ""));
  }

  static String of(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }
}
