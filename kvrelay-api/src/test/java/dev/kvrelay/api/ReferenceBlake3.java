package dev.kvrelay.api;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.bouncycastle.crypto.digests.Blake3Digest;

/**
 * Independent reference for the identity derivations: BouncyCastle BLAKE3 over material framed here with
 * {@link ByteBuffer} and keys sorted by raw UTF-8 bytes — sharing no code with the implementation.
 */
final class ReferenceBlake3 {
  private ReferenceBlake3() {}

  static byte[] blake3(byte[] input) {
    Blake3Digest d = new Blake3Digest(256);
    d.update(input, 0, input.length);
    byte[] out = new byte[32];
    d.doFinal(out, 0);
    return out;
  }

  static byte[] le32(long v) {
    return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) v).array();
  }

  static byte[] le16(int v) {
    return ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort((short) v).array();
  }

  static void framed(ByteArrayOutputStream out, byte[] b) {
    out.writeBytes(le32(b.length));
    out.writeBytes(b);
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** count ‖ framed(k) ‖ framed(v) in UTF-8 byte order of k, or count ‖ framed(d)*. */
  static void selected(ByteArrayOutputStream out, List<String> defaults, Map<String, String> explicit) {
    if (explicit != null) {
      List<byte[][]> pairs = new ArrayList<>();
      explicit.forEach((k, v) -> pairs.add(new byte[][] {utf8(k), utf8(v)}));
      pairs.sort((x, y) -> Arrays.compareUnsigned(x[0], y[0]));
      out.writeBytes(le32(pairs.size()));
      for (byte[][] p : pairs) {
        framed(out, p[0]);
        framed(out, p[1]);
      }
    } else {
      out.writeBytes(le32(defaults.size()));
      for (String d : defaults) {
        framed(out, utf8(d));
      }
    }
  }

  static byte[] cacheMaterial(List<String> defaults, Map<String, String> explicit, long blockSize, int hashFormat) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    framed(out, utf8(explicit != null
        ? "dynamo/indexer-cache-semantics/explicit/v1"
        : "dynamo/indexer-cache-semantics/default/v1"));
    selected(out, defaults, explicit);
    out.writeBytes(le32(blockSize));
    out.writeBytes(le16(hashFormat));
    return out.toByteArray();
  }

  static byte[] routingMaterial(List<String> defaults, Map<String, String> explicit) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    framed(out, utf8(explicit != null
        ? "dynamo/indexer-routing-scope/explicit/v1"
        : "dynamo/indexer-routing-scope/default/v1"));
    selected(out, defaults, explicit);
    return out.toByteArray();
  }

  static byte[] digest16(byte[] material) {
    return Arrays.copyOf(blake3(material), 16);
  }

  static long dcId(String name) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes("dynamo/indexer-dc/v1".getBytes(StandardCharsets.US_ASCII));
    framed(out, utf8(name));
    return ByteBuffer.wrap(blake3(out.toByteArray())).order(ByteOrder.LITTLE_ENDIAN).getLong();
  }
}
