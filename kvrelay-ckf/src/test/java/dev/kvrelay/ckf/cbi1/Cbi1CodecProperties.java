package dev.kvrelay.ckf.cbi1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.Cbi1DecodeException.Reason;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * QuickTheories properties of the CBI1 codec. Expected bytes come from {@link Cbi1Reference} (an
 * independent naive writer); expected reasons from the spec's field table.
 */
class Cbi1CodecProperties {

  /** A valid frame together with the format it was encoded for and what it carries. */
  record Sample(CkfFormat format, byte[] frame, Cbi1Frame expected) {
    @Override
    public String toString() {
      return expected + " " + format + " (" + frame.length + " bytes)";
    }
  }

  static Sample delta(SplittableRandom r, int maxLogB, int maxImages) {
    CkfFormat format = CkfFormat.of(r.nextLong(), 1L << (1 + r.nextInt(maxLogB)));
    int count = r.nextInt(maxImages + 1);
    int[] buckets = new int[count];
    long[] words = new long[count];
    for (int i = 0; i < count; i++) {
      // about one image in eight repeats an earlier bucket: legal CBI1
      buckets[i] = i > 0 && r.nextInt(8) == 0 ? buckets[r.nextInt(i)] : r.nextInt(format.bucketCount());
      words[i] = r.nextInt(4) == 0 ? 0 : r.nextLong();
    }
    long dc = r.nextLong();
    long base = r.nextLong();
    long seq = r.nextLong();
    byte[] frame = Cbi1Reference.delta(format.seed(), format.bucketCount(), dc, base, seq, buckets, words);
    return new Sample(format, frame, new Cbi1Frame.Delta(
        new Cbi1Header(format.seed(), format.bucketCount(), dc, seq), base, buckets, words));
  }

  static Sample singleChunk(SplittableRandom r, int maxLogB) {
    CkfFormat format = CkfFormat.of(r.nextLong(), 1L << (1 + r.nextInt(maxLogB)));
    long[] words = randomWords(r, format.bucketCount());
    long dc = r.nextLong();
    long seq = r.nextLong();
    byte[] frame = Cbi1Reference.chunk(format.seed(), format.bucketCount(), dc, seq, 0, 1, 0, words);
    return new Sample(format, frame, new Cbi1Frame.SnapshotChunk(
        new Cbi1Header(format.seed(), format.bucketCount(), dc, seq), 0, 1, 0, words));
  }

  static long[] randomWords(SplittableRandom r, int n) {
    long[] words = new long[n];
    for (int i = 0; i < n; i++) {
      words[i] = r.nextInt(3) == 0 ? 0 : r.nextLong();
    }
    return words;
  }

  /** Small valid frames (≤ 64 buckets, ≤ 24 images) so that every bit and length can be tried. */
  static Gen<Sample> smallFrames() {
    return longs().all().map(s -> {
      SplittableRandom r = new SplittableRandom(s);
      return r.nextBoolean() ? delta(r, 6, 24) : singleChunk(r, 6);
    });
  }

  static Reason failure(CkfFormat format, byte[] frame) {
    try {
      Cbi1Frame f = Cbi1Decoder.decode(format, frame);
      return fail("decoded " + f);
    } catch (Cbi1DecodeException e) {
      return e.reason();
    }
  }

  // ---- (c) round trips -------------------------------------------------------------------------

  @Test
  void randomDeltasEncodeLikeTheReferenceAndRoundTrip() {
    qt().withExamples(500).forAll(longs().all()).checkAssert(s -> {
      Sample sample = delta(new SplittableRandom(s), 14, 400);
      Cbi1Frame.Delta d = (Cbi1Frame.Delta) sample.expected();
      try {
        byte[] encoded = Cbi1Encoder.encodeDelta(sample.format(), d.dcId(), d.baseEpoch(), d.epoch(),
            d.buckets(), d.words(), d.imageCount());
        assertThat(encoded).isEqualTo(sample.frame());
        assertThat(Cbi1Decoder.decode(sample.format(), encoded)).isEqualTo(d);
      } catch (Cbi1EncodeException | Cbi1DecodeException e) {
        fail("valid delta refused", e);
      }
    });
  }

  @Test
  void randomSingleChunkSnapshotsEncodeLikeTheReferenceAndRoundTrip() {
    qt().withExamples(300).forAll(longs().all(), integers().between(1, 16)).checkAssert((s, logB) -> {
      SplittableRandom r = new SplittableRandom(s);
      CkfFormat format = CkfFormat.of(r.nextLong(), 1L << logB);
      long[] words = randomWords(r, format.bucketCount());
      long dc = r.nextLong();
      long seq = r.nextLong();
      try {
        List<byte[]> frames = Cbi1Encoder.encodeSnapshot(format, dc, seq, words);
        assertThat(frames).hasSize(1);
        assertThat(frames.get(0)).isEqualTo(Cbi1Reference.chunk(format.seed(), format.bucketCount(), dc, seq, 0, 1, 0, words));
        assertThat(Cbi1Decoder.decode(format, frames.get(0))).isEqualTo(new Cbi1Frame.SnapshotChunk(
            new Cbi1Header(format.seed(), format.bucketCount(), dc, seq), 0, 1, 0, words));
        AssembledSnapshot done = new SnapshotAssembly(format).accept(frames.get(0)).orElseThrow();
        assertThat(done).isEqualTo(new AssembledSnapshot(seq, words));
      } catch (Cbi1EncodeException | Cbi1DecodeException e) {
        fail("valid snapshot refused", e);
      }
    });
  }

  @Test
  void randomMultiChunkSnapshotsRoundTrip() {
    qt().withExamples(6).forAll(longs().all(), integers().between(20, 21)).checkAssert((s, logB) -> {
      SplittableRandom r = new SplittableRandom(s);
      CkfFormat format = CkfFormat.of(r.nextLong(), 1L << logB);
      long[] words = randomWords(r, format.bucketCount());
      long[] pristine = words.clone();
      long seq = r.nextLong();
      try {
        List<byte[]> frames = Cbi1Encoder.encodeSnapshot(format, 5, seq, words);
        byte[][] reference = Cbi1Reference.snapshot(format.seed(), format.bucketCount(), 5, seq, words);
        assertThat(frames).hasSize(reference.length);
        SnapshotAssembly assembly = new SnapshotAssembly(format);
        for (int i = 0; i < frames.size(); i++) {
          assertThat(frames.get(i)).isEqualTo(reference[i]);
          var result = assembly.accept(frames.get(i));
          assertThat(result.isPresent()).isEqualTo(i == frames.size() - 1);
          result.ifPresent(done -> assertThat(done).isEqualTo(new AssembledSnapshot(seq, pristine)));
        }
        assertThat(words).isEqualTo(pristine);
      } catch (Cbi1EncodeException | Cbi1DecodeException e) {
        fail("valid snapshot refused", e);
      }
    });
  }

  // ---- truncation and bit flips ----------------------------------------------------------------

  @Test
  void everyTruncationIsRejected() {
    qt().withExamples(300).forAll(smallFrames()).checkAssert(sample -> {
      for (int len = 0; len < sample.frame().length; len++) {
        Reason expected = len < 48 ? Reason.TRUNCATED : Reason.CHECKSUM;
        assertThat(failure(sample.format(), Arrays.copyOf(sample.frame(), len))).as("length %d", len).isEqualTo(expected);
      }
    });
  }

  /** The reason a single-bit flip at byte {@code offset} must produce; null for dc_id and epoch. */
  static Reason flipReason(int offset) {
    if (offset < 4) {
      return Reason.MAGIC;
    } else if (offset < 6) {
      return Reason.WIRE_VERSION;
    } else if (offset < 8) {
      return Reason.FLAGS;
    } else if (offset == 8) {
      return Reason.FORMAT_MISMATCH_FINGERPRINT_BITS;
    } else if (offset == 9) {
      return Reason.FORMAT_MISMATCH_SLOTS_PER_BUCKET;
    } else if (offset < 12) {
      return Reason.FORMAT_VERSION;
    } else if (offset < 20) {
      return Reason.FORMAT_MISMATCH_SEED;
    } else if (offset < 28) {
      return Reason.FORMAT_MISMATCH_BUCKET_COUNT;
    } else if (offset < 44) {
      return null;
    }
    return Reason.CHECKSUM; // the stored checksum itself, or any body byte
  }

  /**
   * Every single-bit flip is rejected with the flipped field's own reason, except dc_id and epoch
   * (bytes 28..44): the checksum covers only the body, so such frames decode and carry the flipped
   * value, which the consumer's envelope checks ({@code header.dc_id == producer.dc_id},
   * {@code header.epoch == envelope.sequence}) reject.
   */
  @Test
  void everySingleBitFlipIsRejectedOrVisible() {
    qt().withExamples(120).forAll(smallFrames()).checkAssert(sample -> {
      byte[] frame = sample.frame();
      for (int bit = 0; bit < frame.length * 8; bit++) {
        byte[] flipped = frame.clone();
        int offset = bit >>> 3;
        flipped[offset] ^= (byte) (1 << (bit & 7));
        Reason expected = flipReason(offset);
        if (expected != null) {
          assertThat(failure(sample.format(), flipped)).as("bit %d", bit).isEqualTo(expected);
          continue;
        }
        try {
          Cbi1Frame f = Cbi1Decoder.decode(sample.format(), flipped);
          long mask = 1L << (bit - (offset < 36 ? 28 * 8 : 36 * 8));
          Cbi1Header h = sample.expected().header();
          Cbi1Header want = offset < 36
              ? new Cbi1Header(h.seed(), h.bucketCount(), h.dcId() ^ mask, h.epoch())
              : new Cbi1Header(h.seed(), h.bucketCount(), h.dcId(), h.epoch() ^ mask);
          assertThat(f.header()).as("bit %d", bit).isEqualTo(want);
        } catch (Cbi1DecodeException e) {
          fail("bit " + bit + " in dc_id/epoch rejected", e);
        }
      }
    });
  }

  // ---- each wrong header field has its own reason ----------------------------------------------

  @Test
  void eachWrongHeaderFieldHasItsOwnReason() {
    qt().withExamples(1000).forAll(smallFrames(), integers().between(0, 8), longs().all())
        .checkAssert((sample, field, value) -> {
          byte[] f = sample.frame().clone();
          ByteBuffer b = Cbi1Reference.le(f);
          Reason expected;
          switch (field) {
            case 0 -> {
              int magic = (int) (long) value == Cbi1.MAGIC ? (int) (long) value + 1 : (int) (long) value;
              b.putInt(0, magic);
              expected = Reason.MAGIC;
            }
            case 1 -> {
              b.putShort(4, (short) ((value & 0xFFFF) == 1 ? 2 : value));
              expected = Reason.WIRE_VERSION;
            }
            case 2 -> {
              long v = value & 0xFFFF;
              b.putShort(6, (short) (v == 1 || v == 2 ? v + 2 : v));
              expected = Reason.FLAGS;
            }
            case 3 -> {
              b.put(8, (byte) ((value & 0xFF) == 16 ? 17 : value));
              expected = Reason.FORMAT_MISMATCH_FINGERPRINT_BITS;
            }
            case 4 -> {
              b.put(9, (byte) ((value & 0xFF) == 4 ? 5 : value));
              expected = Reason.FORMAT_MISMATCH_SLOTS_PER_BUCKET;
            }
            case 5 -> {
              b.putShort(10, (short) ((value & 0xFFFF) == 1 ? 0 : value));
              expected = Reason.FORMAT_VERSION;
            }
            case 6 -> {
              b.putLong(12, value == sample.format().seed() ? ~value : value);
              expected = Reason.FORMAT_MISMATCH_SEED;
            }
            case 7 -> {
              b.putLong(20, value == sample.format().bucketCount() ? ~value : value);
              expected = Reason.FORMAT_MISMATCH_BUCKET_COUNT;
            }
            default -> {
              int stored = b.getInt(44);
              b.putInt(44, (int) (long) value == stored ? stored + 1 : (int) (long) value);
              expected = Reason.CHECKSUM;
            }
          }
          assertThat(failure(sample.format(), f)).isEqualTo(expected);
        });
  }

  @Test
  void aDifferentExpectedFormatIsAMismatch() {
    qt().withExamples(300).forAll(smallFrames(), longs().all(), integers().between(1, 24))
        .checkAssert((sample, seed, logB) -> {
          CkfFormat other = CkfFormat.of(seed, 1L << logB);
          Reason r = failure(other.equals(sample.format()) ? CkfFormat.of(~seed, 1L << logB) : other, sample.frame());
          assertThat(r).isIn(Reason.FORMAT_MISMATCH_SEED, Reason.FORMAT_MISMATCH_BUCKET_COUNT);
          assertThat(r.isFormatMismatch()).isTrue();
        });
  }

  // ---- garbage ---------------------------------------------------------------------------------

  /**
   * Random bytes, from pure noise to frames with a valid, resealed header and a random body, never make
   * the decoder throw anything but {@link Cbi1DecodeException}; whatever it accepts is canonical (the
   * independent writer reproduces the exact bytes).
   */
  @Test
  void garbageNeverThrowsUncheckedAndAcceptedFramesAreCanonical() {
    CkfFormat format = CkfFormat.of(0x5EED, 16);
    java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
    java.util.Set<Reason> seen = java.util.EnumSet.noneOf(Reason.class);
    qt().withExamples(5000).forAll(longs().all(), integers().between(0, 4), integers().between(0, 400))
        .checkAssert((s, mode, len) -> {
          byte[] bytes = garbage(new SplittableRandom(s), mode, len, format);
          Cbi1Frame f;
          try {
            f = Cbi1Decoder.decode(format, bytes);
          } catch (Cbi1DecodeException e) {
            assertThat(e.reason()).isNotIn(Reason.CHUNK_SEQUENCE, Reason.INCOMPLETE_COVERAGE);
            seen.add(e.reason());
            return;
          } catch (RuntimeException e) {
            throw new AssertionError("unchecked from decode of " + Cbi1Reference.hex(bytes), e);
          }
          accepted.incrementAndGet();
          if (f instanceof Cbi1Frame.Delta d) {
            assertThat(bytes).isEqualTo(Cbi1Reference.delta(d.header().seed(), d.header().bucketCount(),
                d.dcId(), d.baseEpoch(), d.epoch(), d.buckets(), d.words()));
          } else {
            Cbi1Frame.SnapshotChunk c = (Cbi1Frame.SnapshotChunk) f;
            assertThat(bytes).isEqualTo(Cbi1Reference.chunk(c.header().seed(), c.header().bucketCount(),
                c.dcId(), c.epoch(), c.chunkIndex(), c.chunkCount(), c.bucketOffset(), c.words()));
          }
        });
    // the generator must reach the body parsers, not just bounce off the header
    assertThat(accepted.get()).as("accepted garbage frames").isGreaterThan(50);
    assertThat(seen).contains(Reason.TRUNCATED, Reason.MAGIC, Reason.FORMAT_VERSION,
        Reason.MALFORMED, Reason.DELTA_IMAGE_COUNT);
  }

  /**
   * Mode 0: noise of {@code len} bytes. 1: CBI1 magic and version then noise, resealed. 2: a valid
   * header for {@code format} with flags 1 or 2 and a noise body, resealed. 3 and 4: a valid header
   * and a body whose length, count and chunk fields are near-consistent small numbers (mode 4 also
   * lets bucket indexes reach B), resealed; {@code len} only seeds the size there.
   */
  static byte[] garbage(SplittableRandom r, int mode, int len, CkfFormat format) {
    int flags = 1 + r.nextInt(2);
    if (mode >= 3) {
      int jitter = r.nextInt(4) == 0 ? r.nextInt(-3, 4) : 0;
      len = Math.max(48, (flags == 2 ? 60 + 12 * (len % 24) : 64 + 8 * (len % 20)) + jitter);
    }
    byte[] b = new byte[len];
    r.nextBytes(b);
    if (mode == 0 || len < 48) {
      return b;
    }
    ByteBuffer bb = Cbi1Reference.le(b);
    bb.putInt(0, Cbi1.MAGIC).putShort(4, (short) 1);
    if (mode >= 2) {
      bb.putShort(6, (short) flags);
      bb.put(8, (byte) 16).put(9, (byte) 4).putShort(10, (short) 1);
      bb.putLong(12, format.seed()).putLong(20, format.bucketCount());
    }
    int body = len - 48;
    if (mode >= 3 && flags == 2 && body >= 12) {
      int consistent = (body - 12) / 12;
      bb.putInt(56, Math.max(0, consistent + (r.nextInt(4) == 0 ? r.nextInt(-1, 2) : 0)));
      for (int p = 60; p + 4 <= len; p += 12) {
        bb.putInt(p, r.nextInt(format.bucketCount() + (mode == 4 ? 2 : 0)));
      }
    } else if (mode >= 3 && flags == 1 && body >= 16) {
      int count = 1 + r.nextInt(3);
      bb.putInt(48, r.nextInt(count + 1)).putInt(52, count);
      bb.putLong(56, r.nextInt(format.bucketCount() + 2));
    }
    return Cbi1Reference.resealed(b);
  }
}
