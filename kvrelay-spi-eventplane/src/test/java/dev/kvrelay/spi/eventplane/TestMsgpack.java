package dev.kvrelay.spi.eventplane;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Not thread-safe: confined to one test. A second msgpack writer, independent of the codec, over
 * {@link SpecTree} trees: canonical mode writes the smallest forms (what {@code rmp_serde} writes); lenient
 * mode ({@code random != null}) picks any legal width for every integer, string, container and byte
 * string, shuffles map entries, adds unknown keys with arbitrary values, writes unit variants as a bare
 * string or a one-entry map, and byte strings as bin or an array of integers.
 */
final class TestMsgpack {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final SplittableRandom random;

  private TestMsgpack(SplittableRandom random) {
    this.random = random;
  }

  static byte[] canonical(Object tree) {
    TestMsgpack w = new TestMsgpack(null);
    w.write(tree);
    return w.out.toByteArray();
  }

  static byte[] lenient(Object tree, SplittableRandom random) {
    TestMsgpack w = new TestMsgpack(random);
    w.write(tree);
    return w.out.toByteArray();
  }

  private boolean lenient() {
    return random != null;
  }

  private void be(long v, int n) {
    for (int i = n - 1; i >= 0; i--) {
      out.write((int) (v >>> (8 * i)) & 0xFF);
    }
  }

  void write(Object v) {
    if (v == null) {
      out.write(0xC0);
    } else if (v instanceof BigInteger b) {
      integer(b);
    } else if (v instanceof String s) {
      string(s);
    } else if (v instanceof SpecTree.Unit u) {
      if (lenient() && random.nextBoolean()) {
        mapHeader(1);
        string(u.name());
        junkOrNil();
      } else {
        string(u.name());
      }
    } else if (v instanceof SpecTree.Variant var) {
      mapHeader(1);
      string(var.name());
      write(var.value());
    } else if (v instanceof byte[] bytes) {
      bytes(bytes);
    } else if (v instanceof List<?> list) {
      arrayHeader(list.size());
      for (Object o : list) {
        write(o);
      }
    } else if (v instanceof Map<?, ?> map) {
      List<Object[]> entries = new ArrayList<>();
      for (Map.Entry<?, ?> e : map.entrySet()) {
        entries.add(new Object[] {e.getKey(), e.getValue()});
      }
      if (lenient()) {
        int extra = random.nextInt(3);
        for (int i = 0; i < extra; i++) {
          entries.add(new Object[] {"x_unknown_" + random.nextInt(1000), null});
        }
        Collections.shuffle(entries, new java.util.Random(random.nextLong()));
      }
      mapHeader(entries.size());
      for (Object[] e : entries) {
        String key = (String) e[0];
        string(key);
        if (key.startsWith("x_unknown_")) {
          junk(0);
        } else {
          write(e[1]);
        }
      }
    } else {
      throw new IllegalArgumentException("unsupported " + v.getClass());
    }
  }

  private void integer(BigInteger b) {
    long v = b.longValue();
    boolean fitsSigned = b.bitLength() <= 63;
    List<Integer> forms = new ArrayList<>();
    if (fitsSigned && v <= 0x7F) {
      forms.add(0);
    }
    if (fitsSigned && v <= 0xFF) {
      forms.add(0xCC);
    }
    if (fitsSigned && v <= 0xFFFF) {
      forms.add(0xCD);
    }
    if (fitsSigned && v <= 0xFFFF_FFFFL) {
      forms.add(0xCE);
    }
    forms.add(0xCF);
    if (fitsSigned && v <= Byte.MAX_VALUE) {
      forms.add(0xD0);
    }
    if (fitsSigned && v <= Short.MAX_VALUE) {
      forms.add(0xD1);
    }
    if (fitsSigned && v <= Integer.MAX_VALUE) {
      forms.add(0xD2);
    }
    if (fitsSigned) {
      forms.add(0xD3);
    }
    int form = lenient() ? forms.get(random.nextInt(forms.size())) : forms.get(0);
    switch (form) {
      case 0 -> out.write((int) v);
      case 0xCC, 0xD0 -> { out.write(form); be(v, 1); }
      case 0xCD, 0xD1 -> { out.write(form); be(v, 2); }
      case 0xCE, 0xD2 -> { out.write(form); be(v, 4); }
      default -> { out.write(form); be(v, 8); }
    }
  }

  private int pickWidth(int n, boolean hasFix, int fixLimit) {
    // 0 = fix, 1 = 8-bit, 2 = 16-bit, 3 = 32-bit length
    List<Integer> widths = new ArrayList<>();
    if (hasFix && n < fixLimit) {
      widths.add(0);
    }
    if (n <= 0xFF) {
      widths.add(1);
    }
    if (n <= 0xFFFF) {
      widths.add(2);
    }
    widths.add(3);
    return lenient() ? widths.get(random.nextInt(widths.size())) : widths.get(0);
  }

  private void string(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    switch (pickWidth(b.length, true, 32)) {
      case 0 -> out.write(0xA0 | b.length);
      case 1 -> { out.write(0xD9); be(b.length, 1); }
      case 2 -> { out.write(0xDA); be(b.length, 2); }
      default -> { out.write(0xDB); be(b.length, 4); }
    }
    out.writeBytes(b);
  }

  private void bytes(byte[] b) {
    if (lenient() && random.nextInt(4) == 0) {
      arrayHeader(b.length);
      for (byte x : b) {
        integer(BigInteger.valueOf(x & 0xFF));
      }
      return;
    }
    // bin has no fix form
    switch (pickWidth(b.length, false, 0)) {
      case 1 -> { out.write(0xC4); be(b.length, 1); }
      case 2 -> { out.write(0xC5); be(b.length, 2); }
      default -> { out.write(0xC6); be(b.length, 4); }
    }
    out.writeBytes(b);
  }

  private void mapHeader(int n) {
    switch (pickWidth(n, true, 16)) {
      case 0 -> out.write(0x80 | n);
      case 1, 2 -> { out.write(0xDE); be(n, 2); }
      default -> { out.write(0xDF); be(n, 4); }
    }
  }

  private void arrayHeader(int n) {
    switch (pickWidth(n, true, 16)) {
      case 0 -> out.write(0x90 | n);
      case 1, 2 -> { out.write(0xDC); be(n, 2); }
      default -> { out.write(0xDD); be(n, 4); }
    }
  }

  private void junkOrNil() {
    if (random.nextBoolean()) {
      out.write(0xC0);
    } else {
      junk(0);
    }
  }

  /** An arbitrary value of any msgpack type (for unknown keys). */
  private void junk(int depth) {
    int kind = random.nextInt(depth > 3 ? 9 : 11);
    switch (kind) {
      case 0 -> out.write(0xC0);
      case 1 -> out.write(random.nextBoolean() ? 0xC2 : 0xC3);
      case 2 -> out.write(0xE0 | random.nextInt(32));
      case 3 -> { out.write(0xD3); be(random.nextLong(), 8); }
      case 4 -> { out.write(0xCB); be(Double.doubleToLongBits(random.nextDouble()), 8); }
      case 5 -> { out.write(0xCA); be(Float.floatToIntBits(1.5f), 4); }
      case 6 -> string("junk" + random.nextInt(100));
      case 7 -> bytes(new byte[] {1, 2, 3});
      case 8 -> { out.write(0xD6); out.write(5); be(random.nextInt(), 4); }
      case 9 -> {
        int n = random.nextInt(4);
        arrayHeader(n);
        for (int i = 0; i < n; i++) {
          junk(depth + 1);
        }
      }
      default -> {
        int n = random.nextInt(3);
        mapHeader(n);
        for (int i = 0; i < n; i++) {
          junk(depth + 1);
          junk(depth + 1);
        }
      }
    }
  }
}
