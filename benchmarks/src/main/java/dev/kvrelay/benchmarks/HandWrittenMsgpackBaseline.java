package dev.kvrelay.benchmarks;

import dev.kvrelay.spi.eventplane.EventEnvelope;
import dev.kvrelay.spi.eventplane.EventMessage;
import dev.kvrelay.spi.eventplane.KvEventData;
import dev.kvrelay.spi.eventplane.MmExtraInfo;
import dev.kvrelay.spi.eventplane.ResidencyDomain;
import dev.kvrelay.spi.eventplane.RouterEvent;
import dev.kvrelay.spi.eventplane.StorageTier;
import dev.kvrelay.spi.eventplane.StoredBlock;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: the benchmark baseline, the hand-written msgpack decoder of envelope +
 * {@link RouterEvent} that {@code kvrelay-spi-eventplane} used before it moved onto msgpack-core (issue 10,
 * item 4), kept verbatim (same cursor, same decoding rules, same checks) except that it reports a local
 * {@link Failure} instead of the SPI's package-private {@code EventDecodeException} constructor, and leaves
 * out {@code ActiveLoad}. {@link CodecBenchmark} measures it against the production codec on the same bytes;
 * see {@code benchmarks/CODECS.md}. Not used by any production code.
 */
final class HandWrittenMsgpackBaseline {

  private HandWrittenMsgpackBaseline() {}

  /** Immutable: a decode failure of the baseline (reason name, field path). */
  static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;
    final String reason;
    final String field;

    Failure(String reason, String field, String detail) {
      super(reason + " at '" + field + "': " + detail);
      this.reason = reason;
      this.field = field;
    }
  }

  private static byte[][] names(String... names) {
    byte[][] out = new byte[names.length][];
    for (int i = 0; i < names.length; i++) {
      out[i] = names[i].getBytes(StandardCharsets.US_ASCII);
    }
    return out;
  }

  private static final byte[][] ENVELOPE_KEYS = names("publisher_id", "sequence", "published_at", "topic", "payload");
  private static final byte[][] ROUTER_EVENT_KEYS = names("worker_id", "storage_tier", "residency_domain", "event");
  private static final byte[][] EVENT_KEYS = names("event_id", "data", "dp_rank");
  private static final byte[][] DATA_VARIANTS = names("stored", "removed", "cleared");
  private static final byte[][] STORED_KEYS = names("parent_hash", "start_position", "blocks");
  private static final byte[][] BLOCK_KEYS = names("block_hash", "tokens_hash", "mm_extra_info");
  private static final byte[][] MM_INFO_KEYS = names("mm_objects");
  private static final byte[][] MM_OBJECT_KEYS = names("mm_hash", "offsets");
  private static final byte[][] REMOVED_KEYS = names("block_hashes");
  private static final byte[][] STORAGE_TIERS = names("device", "host_pinned", "disk", "external");
  private static final StorageTier[] TIERS = StorageTier.values();

  // ------------------------------------------------------------------ decoding: messages

  /**
   * Decodes one message (an envelope whose payload is decoded by {@code expectedTopic}: {@link ActiveLoad}
   * for {@code kv_metrics}, {@link RouterEvent} otherwise) and checks that the envelope's topic equals
   * {@code expectedTopic}.
   *
   * @throws Failure for any defect; it carries the publisher id once the envelope was read
   */
  static EventMessage decodeMessage(byte[] bytes, String expectedTopic) throws Failure {
    return decodeMessage(bytes, 0, bytes.length, expectedTopic);
  }

  /** As {@link #decodeMessage(byte[], String)}, for {@code bytes[offset, offset + length)}. */
  static EventMessage decodeMessage(byte[] bytes, int offset, int length, String expectedTopic)
      throws Failure {
    checkRange(bytes, offset, length);
    Reader in = new Reader(bytes, offset, length);
    Envelope env = readEnvelope(in);
    in.expectEnd("");
    long publisher = env.envelope.publisherId();
    if (!env.envelope.topic().equals(expectedTopic)) {
      throw new Failure("IDENTITY_MISMATCH", "topic",
          "envelope topic '" + env.envelope.topic() + "' is not the subscribed topic '" + expectedTopic + "'")
;
    }
    byte[] src = env.payload.copy() != null ? env.payload.copy() : bytes;
    try {
      return new EventMessage.KvEvent(env.envelope, decodeRouterEvent(src, env.payload.offset(), env.payload.length()));
    } catch (Failure e) {
      throw new Failure(e.reason, "payload." + e.field, e.getMessage());
    }
  }

  /** Immutable: a decoded envelope and where its payload bytes are. */
  private record Envelope(EventEnvelope envelope, Reader.Span payload) {}

  private static Envelope readEnvelope(Reader in) throws Failure {
    int n = in.readMapHeader("");
    long publisher = 0;
    long sequence = 0;
    long publishedAt = 0;
    String topic = null;
    Reader.Span payload = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(ENVELOPE_KEYS, "");
      if (key < 0) {
        in.skipValue("");
        continue;
      }
      seen = markSeen(seen, key, ENVELOPE_KEYS, "");
      switch (key) {
        case 0 -> publisher = in.readU64("publisher_id");
        case 1 -> sequence = in.readU64("sequence");
        case 2 -> publishedAt = in.readU64("published_at");
        case 3 -> topic = in.readString("topic");
        default -> payload = in.readBytes("payload");
      }
    }
    requireAll(seen, ENVELOPE_KEYS, 0b11111, "");
    return new Envelope(new EventEnvelope(publisher, sequence, publishedAt, nonNull(topic)), nonNull(payload));
  }

  // ------------------------------------------------------------------ decoding: RouterEvent

  /** Decodes one {@link RouterEvent} payload. */
  static RouterEvent decodeRouterEvent(byte[] bytes) throws Failure {
    return decodeRouterEvent(bytes, 0, bytes.length);
  }

  /** Decodes one {@link RouterEvent} payload from {@code bytes[offset, offset + length)}. */
  static RouterEvent decodeRouterEvent(byte[] bytes, int offset, int length) throws Failure {
    checkRange(bytes, offset, length);
    Reader in = new Reader(bytes, offset, length);
    RouterEvent e = readRouterEvent(in);
    in.expectEnd("");
    return e;
  }

  private static RouterEvent readRouterEvent(Reader in) throws Failure {
    int n = in.readMapHeader("");
    long workerId = 0;
    StorageTier tier = StorageTier.DEVICE;
    ResidencyDomain domain = ResidencyDomain.ABSENT;
    KvEvent event = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(ROUTER_EVENT_KEYS, "");
      if (key < 0) {
        in.skipValue("");
        continue;
      }
      seen = markSeen(seen, key, ROUTER_EVENT_KEYS, "");
      switch (key) {
        case 0 -> workerId = in.readU64("worker_id");
        case 1 -> tier = TIERS[readUnitVariant(in, STORAGE_TIERS, "storage_tier")];
        case 2 -> domain = readResidency(in);
        default -> event = readKvEvent(in);
      }
    }
    requireAll(seen, ROUTER_EVENT_KEYS, 0b1001, "");
    KvEvent ev = nonNull(event);
    return new RouterEvent(workerId, tier, domain, ev.eventId, ev.dpRank, ev.data);
  }

  /** Immutable: the fields of the nested {@code event} map. */
  private record KvEvent(long eventId, int dpRank, KvEventData data) {}

  private static KvEvent readKvEvent(Reader in) throws Failure {
    int n = in.readMapHeader("event");
    long eventId = 0;
    int dpRank = 0;
    KvEventData data = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(EVENT_KEYS, "event");
      if (key < 0) {
        in.skipValue("event");
        continue;
      }
      seen = markSeen(seen, key, EVENT_KEYS, "event");
      switch (key) {
        case 0 -> eventId = in.readU64("event.event_id");
        case 1 -> data = readData(in);
        default -> dpRank = in.readU32("event.dp_rank");
      }
    }
    requireAll(seen, EVENT_KEYS, 0b011, "event");
    return new KvEvent(eventId, dpRank, nonNull(data));
  }

  private static KvEventData readData(Reader in) throws Failure {
    String field = "event.data";
    if (in.nextIsString(field)) {
      int v = in.readName(DATA_VARIANTS, field);
      if (v == 2) {
        return KvEventData.Cleared.INSTANCE;
      }
      throw new Failure("BAD_VARIANT", field,
          v < 0 ? "unknown variant" : "variant '" + new String(DATA_VARIANTS[v], StandardCharsets.US_ASCII)
              + "' needs content (a one-entry map)");
    }
    if (!in.nextIsMap(field)) {
      throw in.wrongType(field, "a variant (string or one-entry map)");
    }
    int n = in.readMapHeader(field);
    if (n != 1) {
      throw new Failure("BAD_VARIANT", field, "a variant map must have one entry, has " + n);
    }
    if (!in.nextIsString(field)) {
      throw in.wrongType(field, "a variant name");
    }
    int v = in.readName(DATA_VARIANTS, field);
    switch (v) {
      case 0:
        return readStored(in);
      case 1:
        return readRemoved(in);
      case 2:
        in.skipValue("event.data.cleared");
        return KvEventData.Cleared.INSTANCE;
      default:
        throw new Failure("BAD_VARIANT", field, "unknown variant");
    }
  }

  private static KvEventData.Stored readStored(Reader in) throws Failure {
    String field = "event.data.stored";
    int n = in.readMapHeader(field);
    OptionalLong parent = OptionalLong.empty();
    OptionalLong start = OptionalLong.empty();
    List<StoredBlock> blocks = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(STORED_KEYS, field);
      if (key < 0) {
        in.skipValue(field);
        continue;
      }
      seen = markSeen(seen, key, STORED_KEYS, field);
      switch (key) {
        case 0 -> parent = readOptionalU64(in, "event.data.stored.parent_hash");
        case 1 -> start = readOptionalU64(in, "event.data.stored.start_position");
        default -> {
          int count = in.readArrayHeader("event.data.stored.blocks");
          List<StoredBlock> list = new ArrayList<>(count);
          for (int b = 0; b < count; b++) {
            list.add(readBlock(in));
          }
          blocks = list;
        }
      }
    }
    requireAll(seen, STORED_KEYS, 0b100, field);
    return new KvEventData.Stored(parent, start, nonNull(blocks));
  }

  private static StoredBlock readBlock(Reader in) throws Failure {
    String field = "event.data.stored.blocks";
    int n = in.readMapHeader(field);
    long blockHash = 0;
    long tokensHash = 0;
    MmExtraInfo mm = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(BLOCK_KEYS, field);
      if (key < 0) {
        in.skipValue(field);
        continue;
      }
      seen = markSeen(seen, key, BLOCK_KEYS, field);
      switch (key) {
        case 0 -> blockHash = in.readU64("event.data.stored.blocks.block_hash");
        case 1 -> tokensHash = in.readU64("event.data.stored.blocks.tokens_hash");
        default -> mm = in.tryNil("event.data.stored.blocks.mm_extra_info") ? null : readMmInfo(in);
      }
    }
    requireAll(seen, BLOCK_KEYS, 0b011, field);
    return new StoredBlock(blockHash, tokensHash, mm);
  }

  private static MmExtraInfo readMmInfo(Reader in) throws Failure {
    String field = "event.data.stored.blocks.mm_extra_info";
    int n = in.readMapHeader(field);
    List<MmExtraInfo.MmObject> objects = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(MM_INFO_KEYS, field);
      if (key < 0) {
        in.skipValue(field);
        continue;
      }
      seen = markSeen(seen, key, MM_INFO_KEYS, field);
      int count = in.readArrayHeader(field + ".mm_objects");
      List<MmExtraInfo.MmObject> list = new ArrayList<>(count);
      for (int o = 0; o < count; o++) {
        list.add(readMmObject(in));
      }
      objects = list;
    }
    requireAll(seen, MM_INFO_KEYS, 0b1, field);
    return new MmExtraInfo(nonNull(objects));
  }

  private static MmExtraInfo.MmObject readMmObject(Reader in) throws Failure {
    String field = "event.data.stored.blocks.mm_extra_info.mm_objects";
    int n = in.readMapHeader(field);
    long hash = 0;
    List<MmExtraInfo.TokenRange> offsets = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(MM_OBJECT_KEYS, field);
      if (key < 0) {
        in.skipValue(field);
        continue;
      }
      seen = markSeen(seen, key, MM_OBJECT_KEYS, field);
      if (key == 0) {
        hash = in.readU64(field + ".mm_hash");
      } else {
        String f = field + ".offsets";
        int count = in.readArrayHeader(f);
        List<MmExtraInfo.TokenRange> list = new ArrayList<>(count);
        for (int r = 0; r < count; r++) {
          int pair = in.readArrayHeader(f);
          if (pair != 2) {
            throw new Failure("WRONG_TYPE", f, "expected a [start, end] pair, got " + pair + " elements");
          }
          list.add(new MmExtraInfo.TokenRange(in.readU64(f), in.readU64(f)));
        }
        offsets = list;
      }
    }
    requireAll(seen, MM_OBJECT_KEYS, 0b11, field);
    return new MmExtraInfo.MmObject(hash, nonNull(offsets));
  }

  private static KvEventData.Removed readRemoved(Reader in) throws Failure {
    String field = "event.data.removed";
    int n = in.readMapHeader(field);
    long[] hashes = null;
    int seen = 0;
    for (int i = 0; i < n; i++) {
      int key = in.readKey(REMOVED_KEYS, field);
      if (key < 0) {
        in.skipValue(field);
        continue;
      }
      seen = markSeen(seen, key, REMOVED_KEYS, field);
      String f = "event.data.removed.block_hashes";
      int count = in.readArrayHeader(f);
      long[] out = new long[count];
      for (int h = 0; h < count; h++) {
        out[h] = in.readU64(f);
      }
      hashes = out;
    }
    requireAll(seen, REMOVED_KEYS, 0b1, field);
    return new KvEventData.Removed(nonNull(hashes));
  }

  private static ResidencyDomain readResidency(Reader in) throws Failure {
    String field = "residency_domain";
    if (in.tryNil(field)) {
      return ResidencyDomain.unknown(null);
    }
    if (in.nextIsString(field)) {
      return ResidencyDomain.fromWire(in.readString(field));
    }
    if (!in.nextIsMap(field)) {
      throw in.wrongType(field, "a residency domain (string, one-entry map or nil)");
    }
    int n = in.readMapHeader(field);
    if (n != 1) {
      throw new Failure("BAD_VARIANT", field, "a variant map must have one entry, has " + n);
    }
    if (!in.nextIsString(field)) {
      throw in.wrongType(field, "a variant name");
    }
    String name = in.readString(field);
    in.skipValue(field);
    return ResidencyDomain.fromWire(name);
  }

  // ------------------------------------------------------------------ decoding helpers

  private static OptionalLong readOptionalU64(Reader in, String field) throws Failure {
    return in.tryNil(field) ? OptionalLong.empty() : OptionalLong.of(in.readU64(field));
  }

  /** A unit variant as a bare string or a one-entry map whose value is ignored; returns its index. */
  private static int readUnitVariant(Reader in, byte[][] variants, String field) throws Failure {
    int v;
    if (in.nextIsString(field)) {
      v = in.readName(variants, field);
    } else if (in.nextIsMap(field)) {
      int n = in.readMapHeader(field);
      if (n != 1) {
        throw new Failure("BAD_VARIANT", field, "a variant map must have one entry, has " + n);
      }
      if (!in.nextIsString(field)) {
        throw in.wrongType(field, "a variant name");
      }
      v = in.readName(variants, field);
      if (v >= 0) {
        in.skipValue(field);
      }
    } else {
      throw in.wrongType(field, "a variant (string or one-entry map)");
    }
    if (v < 0) {
      throw new Failure("BAD_VARIANT", field, "unknown variant");
    }
    return v;
  }

  private static int markSeen(int seen, int key, byte[][] keys, String field) throws Failure {
    int bit = 1 << key;
    if ((seen & bit) != 0) {
      throw new Failure("DUPLICATE_FIELD", join(field, keys[key]), "field appears twice");
    }
    return seen | bit;
  }

  private static void requireAll(int seen, byte[][] keys, int required, String field) throws Failure {
    int missing = required & ~seen;
    if (missing != 0) {
      int key = Integer.numberOfTrailingZeros(missing);
      throw new Failure("MISSING_FIELD", join(field, keys[key]), "required field is absent");
    }
  }

  private static String join(String field, byte[] key) {
    String k = new String(key, StandardCharsets.US_ASCII);
    return field.isEmpty() ? k : field + "." + k;
  }

  private static <T> T nonNull(@Nullable T value) {
    if (value == null) {
      throw new IllegalStateException("required field checked present but not set");
    }
    return value;
  }

  private static void checkRange(byte[] bytes, int offset, int length) {
    if (offset < 0 || length < 0 || offset > bytes.length - length) {
      throw new IndexOutOfBoundsException(
          "range [" + offset + ", +" + length + ") outside an array of " + bytes.length);
    }
  }

  /**
   * Not thread-safe: confined to one decode call. The hand-written bounds-checked msgpack cursor.
   */
  static final class Reader {
    /** How deep an ignored (unknown) value may nest before the decoder gives up. */
    static final int MAX_SKIP_DEPTH = 64;

    private final byte[] buf;
    private final int end;
    private int pos;

    Reader(byte[] buf, int offset, int length) {
      this.buf = buf;
      this.pos = offset;
      this.end = offset + length;
    }

    int remaining() {
      return end - pos;
    }

    void expectEnd(String field) throws Failure {
      if (pos != end) {
        throw new Failure("TRAILING_BYTES", field, (end - pos) + " bytes after the value");
      }
    }

    private int peek(String field) throws Failure {
      if (pos >= end) {
        throw new Failure("TRUNCATED", field, "input ends where a value starts");
      }
      return buf[pos] & 0xFF;
    }

    private int u8(String field) throws Failure {
      int b = peek(field);
      pos++;
      return b;
    }

    private long fixed(int bytes, String field) throws Failure {
      if (end - pos < bytes) {
        throw new Failure("TRUNCATED", field, "input ends inside a " + bytes + "-byte value");
      }
      long v = 0;
      for (int i = 0; i < bytes; i++) {
        v = (v << 8) | (buf[pos + i] & 0xFFL);
      }
      pos += bytes;
      return v;
    }

    /** True if the next value is nil (not consumed). */
    boolean nextIsNil(String field) throws Failure {
      return peek(field) == 0xC0;
    }

    /** True if the next value is a string (not consumed). */
    boolean nextIsString(String field) throws Failure {
      int b = peek(field);
      return (b >= 0xA0 && b <= 0xBF) || b == 0xD9 || b == 0xDA || b == 0xDB;
    }

    /** True if the next value is a map (not consumed). */
    boolean nextIsMap(String field) throws Failure {
      int b = peek(field);
      return (b >= 0x80 && b <= 0x8F) || b == 0xDE || b == 0xDF;
    }

    /** Consumes a nil if one is next; returns whether it did. */
    boolean tryNil(String field) throws Failure {
      if (nextIsNil(field)) {
        pos++;
        return true;
      }
      return false;
    }

    /** Reads any msgpack integer as an unsigned 64-bit value; negative values are out of range. */
    long readU64(String field) throws Failure {
      int b = u8(field);
      if (b <= 0x7F) {
        return b;
      }
      long v;
      switch (b) {
        case 0xCC: return fixed(1, field);
        case 0xCD: return fixed(2, field);
        case 0xCE: return fixed(4, field);
        case 0xCF: return fixed(8, field);
        case 0xD0: v = (byte) fixed(1, field); break;
        case 0xD1: v = (short) fixed(2, field); break;
        case 0xD2: v = (int) fixed(4, field); break;
        case 0xD3: v = fixed(8, field); break;
        default:
          if (b >= 0xE0) {
            v = (byte) b;
            break;
          }
          pos--;
          throw wrongType(field, "an integer");
      }
      if (v < 0) {
        throw new Failure("OUT_OF_RANGE", field, "negative value " + v + " for an unsigned field");
      }
      return v;
    }

    /** Reads any msgpack integer that fits an unsigned 32-bit value. */
    int readU32(String field) throws Failure {
      long v = readU64(field);
      if (Long.compareUnsigned(v, 0xFFFF_FFFFL) > 0) {
        throw new Failure(
            "OUT_OF_RANGE", field, Long.toUnsignedString(v) + " does not fit an unsigned 32-bit field");
      }
      return (int) v;
    }

    /** Reads a map header and returns its entry count (at most half the bytes that remain). */
    int readMapHeader(String field) throws Failure {
      int b = u8(field);
      long n;
      if (b >= 0x80 && b <= 0x8F) {
        n = b & 0x0F;
      } else if (b == 0xDE) {
        n = fixed(2, field);
      } else if (b == 0xDF) {
        n = fixed(4, field);
      } else {
        pos--;
        throw wrongType(field, "a map");
      }
      return checkCount(n, 2, field);
    }

    /** Reads an array header and returns its element count (at most the bytes that remain). */
    int readArrayHeader(String field) throws Failure {
      int b = u8(field);
      long n;
      if (b >= 0x90 && b <= 0x9F) {
        n = b & 0x0F;
      } else if (b == 0xDC) {
        n = fixed(2, field);
      } else if (b == 0xDD) {
        n = fixed(4, field);
      } else {
        pos--;
        throw wrongType(field, "an array");
      }
      return checkCount(n, 1, field);
    }

    private int checkCount(long n, int minBytesEach, String field) throws Failure {
      if (n * minBytesEach > end - pos) {
        throw new Failure("OVERSIZE_LENGTH", field,
            "declares " + n + " elements but only " + (end - pos) + " bytes remain");
      }
      return (int) n;
    }

    /** Reads a string header and returns the byte length; the cursor is left on the first byte. */
    private int readStringHeader(String field) throws Failure {
      int b = u8(field);
      long n;
      if (b >= 0xA0 && b <= 0xBF) {
        n = b & 0x1F;
      } else if (b == 0xD9) {
        n = fixed(1, field);
      } else if (b == 0xDA) {
        n = fixed(2, field);
      } else if (b == 0xDB) {
        n = fixed(4, field);
      } else {
        pos--;
        throw wrongType(field, "a string");
      }
      return checkCount(n, 1, field);
    }

    /** Reads a UTF-8 string. */
    String readString(String field) throws Failure {
      int n = readStringHeader(field);
      String s = utf8(buf, pos, n, field);
      pos += n;
      return s;
    }

    /**
     * Reads a string and returns the index of the equal entry of {@code names} (compared as bytes), or −1
     * if none is equal. {@code names} are ASCII.
     */
    int readName(byte[][] names, String field) throws Failure {
      int n = readStringHeader(field);
      int start = pos;
      pos += n;
      for (int i = 0; i < names.length; i++) {
        if (equalsRange(names[i], start, n)) {
          return i;
        }
      }
      return -1;
    }

    /**
     * Reads a map key: the index of the equal entry of {@code names}, or −1 for a key that is not one of
     * them (including a non-string key, which is skipped).
     */
    int readKey(byte[][] names, String field) throws Failure {
      if (nextIsString(field)) {
        return readName(names, field);
      }
      skipValue(field);
      return -1;
    }

    /** The bytes of the last string read by {@link #readName}, for messages; decoded leniently. */
    String describeLastName(int length) {
      int n = Math.min(length, 64);
      return new String(buf, pos - length, n, StandardCharsets.UTF_8);
    }

    private boolean equalsRange(byte[] name, int start, int n) {
      if (name.length != n) {
        return false;
      }
      for (int i = 0; i < n; i++) {
        if (buf[start + i] != name[i]) {
          return false;
        }
      }
      return true;
    }

    /**
     * Reads a byte string: a msgpack {@code bin}, or (leniently, as a {@code Vec<u8>} serialized without
     * {@code serde_bytes}) an array of integers 0..255.
     */
    Span readBytes(String field) throws Failure {
      int b = peek(field);
      if (b == 0xC4 || b == 0xC5 || b == 0xC6) {
        pos++;
        long n = fixed(b == 0xC4 ? 1 : b == 0xC5 ? 2 : 4, field);
        int len = checkCount(n, 1, field);
        Span s = new Span(pos, len, null);
        pos += len;
        return s;
      }
      if ((b >= 0x90 && b <= 0x9F) || b == 0xDC || b == 0xDD) {
        int n = readArrayHeader(field);
        byte[] out = new byte[n];
        for (int i = 0; i < n; i++) {
          long v = readU64(field);
          if (v > 0xFF) {
            throw new Failure("OUT_OF_RANGE", field, "byte array element " + v + " exceeds 255");
          }
          out[i] = (byte) v;
        }
        return new Span(0, n, out);
      }
      throw wrongType(field, "binary data");
    }

    /** Immutable by contract: a byte range of the input, or a copied array when the bytes were not contiguous. */
    record Span(int offset, int length, byte @Nullable [] copy) {}

    byte[] buffer() {
      return buf;
    }

    /** Skips one value of any type, following at most {@link #MAX_SKIP_DEPTH} levels of nesting. */
    void skipValue(String field) throws Failure {
      skip(field, 0);
    }

    private void skip(String field, int depth) throws Failure {
      if (depth > MAX_SKIP_DEPTH) {
        throw new Failure("TOO_DEEP", field, "ignored value nests deeper than " + MAX_SKIP_DEPTH);
      }
      int b = peek(field);
      if (b <= 0x7F || b >= 0xE0 || b == 0xC0 || b == 0xC2 || b == 0xC3) {
        pos++;
        return;
      }
      if ((b >= 0x80 && b <= 0x8F) || b == 0xDE || b == 0xDF) {
        int n = readMapHeader(field);
        for (int i = 0; i < n; i++) {
          skip(field, depth + 1);
          skip(field, depth + 1);
        }
        return;
      }
      if ((b >= 0x90 && b <= 0x9F) || b == 0xDC || b == 0xDD) {
        int n = readArrayHeader(field);
        for (int i = 0; i < n; i++) {
          skip(field, depth + 1);
        }
        return;
      }
      if ((b >= 0xA0 && b <= 0xBF) || b == 0xD9 || b == 0xDA || b == 0xDB) {
        int n = readStringHeader(field);
        pos += n;
        return;
      }
      pos++;
      switch (b) {
        case 0xC4: skipBytes(fixed(1, field), field); return;
        case 0xC5: skipBytes(fixed(2, field), field); return;
        case 0xC6: skipBytes(fixed(4, field), field); return;
        case 0xC7: skipBytes(fixed(1, field) + 1, field); return;
        case 0xC8: skipBytes(fixed(2, field) + 1, field); return;
        case 0xC9: skipBytes(fixed(4, field) + 1, field); return;
        case 0xCA: skipBytes(4, field); return;
        case 0xCB: skipBytes(8, field); return;
        case 0xCC: case 0xD0: skipBytes(1, field); return;
        case 0xCD: case 0xD1: skipBytes(2, field); return;
        case 0xCE: case 0xD2: skipBytes(4, field); return;
        case 0xCF: case 0xD3: skipBytes(8, field); return;
        case 0xD4: skipBytes(2, field); return;
        case 0xD5: skipBytes(3, field); return;
        case 0xD6: skipBytes(5, field); return;
        case 0xD7: skipBytes(9, field); return;
        case 0xD8: skipBytes(17, field); return;
        default:
          pos--;
          throw new Failure("WRONG_TYPE", field, "reserved msgpack byte 0xc1");
      }
    }

    private void skipBytes(long n, String field) throws Failure {
      if (n > end - pos) {
        throw new Failure("OVERSIZE_LENGTH", field,
            "declares " + n + " bytes but only " + (end - pos) + " remain");
      }
      pos += (int) n;
    }

    Failure wrongType(String field, String expected) {
      String got = pos < end ? describe(buf[pos] & 0xFF) : "end of input";
      return new Failure("WRONG_TYPE", field, "expected " + expected + ", got " + got);
    }

    private static String describe(int b) {
      if (b <= 0x7F || b >= 0xE0 || (b >= 0xCC && b <= 0xD3)) {
        return "an integer";
      }
      if ((b >= 0x80 && b <= 0x8F) || b == 0xDE || b == 0xDF) {
        return "a map";
      }
      if ((b >= 0x90 && b <= 0x9F) || b == 0xDC || b == 0xDD) {
        return "an array";
      }
      if ((b >= 0xA0 && b <= 0xBF) || (b >= 0xD9 && b <= 0xDB)) {
        return "a string";
      }
      switch (b) {
        case 0xC0: return "nil";
        case 0xC2: case 0xC3: return "a boolean";
        case 0xC4: case 0xC5: case 0xC6: return "binary data";
        case 0xCA: case 0xCB: return "a float";
        case 0xC1: return "the reserved byte 0xc1";
        default: return "an extension value";
      }
    }

    static String utf8(byte[] bytes, int offset, int length, String field) throws Failure {
      try {
        return StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(bytes, offset, length))
            .toString();
      } catch (CharacterCodingException e) {
        throw new Failure("INVALID_UTF8", field, "string is not valid UTF-8");
      }
    }
}
}
