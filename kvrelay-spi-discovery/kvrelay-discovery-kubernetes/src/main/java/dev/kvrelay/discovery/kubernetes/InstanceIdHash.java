package dev.kvrelay.discovery.kubernetes;

import java.nio.charset.StandardCharsets;

/**
 * Stateless and thread-safe: the Kubernetes instance id of a CR name ({@code runtime-inputs §3.4}, vectors in
 * {@code vectors §8}): SipHash-1-3 with zero keys over {@code UTF-8(name) ‖ 0xFF} (Rust's {@code DefaultHasher}
 * over a {@code &str}), masked to 53 bits. The backend reads instance ids from {@code spec.data} and uses this
 * only as a cross-check (the §3.4 decision), because {@code DefaultHasher} is not guaranteed stable.
 */
public final class InstanceIdHash {
  /** The 53-bit mask that keeps ids exact in float64 JSON readers. */
  public static final long MASK = 0x001F_FFFF_FFFF_FFFFL;

  private InstanceIdHash() {}

  /** The masked instance id of {@code crName}. */
  public static long instanceId(String crName) {
    return sipHash13(crName) & MASK;
  }

  /** The raw 64-bit SipHash-1-3 (k0 = k1 = 0) of {@code UTF-8(s) ‖ 0xFF}. */
  public static long sipHash13(String s) {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    byte[] in = new byte[utf8.length + 1];
    System.arraycopy(utf8, 0, in, 0, utf8.length);
    in[utf8.length] = (byte) 0xFF;
    return sipHash13(in);
  }

  /** SipHash-1-3 with zero keys over {@code in}. */
  static long sipHash13(byte[] in) {
    long v0 = 0x736f6d6570736575L;
    long v1 = 0x646f72616e646f6dL;
    long v2 = 0x6c7967656e657261L;
    long v3 = 0x7465646279746573L;
    int len = in.length;
    int whole = len & ~7;
    for (int i = 0; i < whole; i += 8) {
      long m = word(in, i, 8);
      v3 ^= m;
      // one compression round (c = 1)
      v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
      v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
      v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
      v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
      v0 ^= m;
    }
    long b = ((long) len & 0xFF) << 56 | word(in, whole, len - whole);
    v3 ^= b;
    v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
    v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
    v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
    v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
    v0 ^= b;
    v2 ^= 0xFF;
    for (int r = 0; r < 3; r++) { // three finalization rounds (d = 3)
      v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
      v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
      v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
      v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
    }
    return v0 ^ v1 ^ v2 ^ v3;
  }

  /** {@code n} (0–8) bytes at {@code off}, little-endian. */
  private static long word(byte[] in, int off, int n) {
    long w = 0;
    for (int i = 0; i < n; i++) {
      w |= (in[off + i] & 0xFFL) << (8 * i);
    }
    return w;
  }
}
