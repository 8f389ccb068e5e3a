package dev.kvrelay.api;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.commons.codec.digest.Blake3;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe through confinement (instances are private single-use buffers; the static entry points
 * each allocate their own): the one codec for identity material, little-endian length framing
 * ({@code framed(b) = u32_le(len) ‖ b}, {@code count(n) = u32_le(n)}), and the BLAKE3 digests taken over
 * it ({@code producer.md} §1.2–§1.3).
 */
final class IdentityMaterial {

  // Tag arrays are never handed out or written.
  static final byte[] CACHE_DEFAULT_TAG = ascii("dynamo/indexer-cache-semantics/default/v1");
  static final byte[] CACHE_EXPLICIT_TAG = ascii("dynamo/indexer-cache-semantics/explicit/v1");
  static final byte[] ROUTING_DEFAULT_TAG = ascii("dynamo/indexer-routing-scope/default/v1");
  static final byte[] ROUTING_EXPLICIT_TAG = ascii("dynamo/indexer-routing-scope/explicit/v1");
  /** The dc_id tag, written raw (not framed) before the framed name. */
  static final byte[] DC_ID_TAG = ascii("dynamo/indexer-dc/v1");

  private byte[] buffer = new byte[128];
  private int length;

  private IdentityMaterial() {}

  // ---- material builders --------------------------------------------------------------------

  /**
   * {@code framed(tag) ‖ selected ‖ u32_le(kv_block_size) ‖ u16_le(hash_format_version)}; the tag is
   * the explicit one iff {@code explicit} is present.
   */
  static byte[] cacheSemantics(
      List<String> defaults, @Nullable ExplicitIdentityMap explicit, int kvBlockSize, int hashFormatVersion) {
    IdentityMaterial m = new IdentityMaterial();
    m.framed(explicit != null ? CACHE_EXPLICIT_TAG : CACHE_DEFAULT_TAG);
    m.selected(defaults, explicit);
    m.u32(kvBlockSize);
    m.u16(hashFormatVersion);
    return m.toByteArray();
  }

  /** {@code framed(tag) ‖ selected}; the tag is the explicit one iff {@code explicit} is present. */
  static byte[] routingScope(List<String> defaults, @Nullable ExplicitIdentityMap explicit) {
    IdentityMaterial m = new IdentityMaterial();
    m.framed(explicit != null ? ROUTING_EXPLICIT_TAG : ROUTING_DEFAULT_TAG);
    m.selected(defaults, explicit);
    return m.toByteArray();
  }

  /** {@code "dynamo/indexer-dc/v1" ‖ framed(UTF8(name))} — the tag is not framed here. */
  static byte[] dcName(String name) {
    IdentityMaterial m = new IdentityMaterial();
    m.raw(DC_ID_TAG);
    m.framed(utf8(name));
    return m.toByteArray();
  }

  // ---- digests ------------------------------------------------------------------------------

  /** BLAKE3-256 of {@code material}. */
  static byte[] blake3(byte[] material) {
    return Blake3.hash(material);
  }

  /** First 16 bytes of BLAKE3-256 of {@code material}. */
  static byte[] digest16(byte[] material) {
    return Arrays.copyOf(blake3(material), DigestIdentity.DIGEST_BYTES);
  }

  /** First 8 bytes of BLAKE3-256 of the dc material, read little-endian. */
  static long dcId(String name) {
    byte[] h = blake3(dcName(name));
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (h[i] & 0xFFL);
    }
    return v;
  }

  // ---- framing primitives -------------------------------------------------------------------

  private void selected(List<String> defaults, @Nullable ExplicitIdentityMap explicit) {
    if (explicit != null) {
      Map<String, String> entries = explicit.entries();
      u32(entries.size());
      for (Map.Entry<String, String> e : entries.entrySet()) { // ascending byte-wise key order
        framed(utf8(e.getKey()));
        framed(utf8(e.getValue()));
      }
    } else {
      u32(defaults.size());
      for (String d : defaults) {
        framed(utf8(d));
      }
    }
  }

  private void framed(byte[] bytes) {
    u32(bytes.length);
    raw(bytes);
  }

  private void raw(byte[] bytes) {
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buffer, length, bytes.length);
    length += bytes.length;
  }

  private void u32(int v) {
    ensure(4);
    buffer[length++] = (byte) v;
    buffer[length++] = (byte) (v >>> 8);
    buffer[length++] = (byte) (v >>> 16);
    buffer[length++] = (byte) (v >>> 24);
  }

  private void u16(int v) {
    ensure(2);
    buffer[length++] = (byte) v;
    buffer[length++] = (byte) (v >>> 8);
  }

  private void ensure(int extra) {
    if (buffer.length - length < extra) {
      buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, length + extra));
    }
  }

  private byte[] toByteArray() {
    return Arrays.copyOf(buffer, length);
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
