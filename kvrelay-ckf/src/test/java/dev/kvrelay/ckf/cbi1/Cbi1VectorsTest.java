package dev.kvrelay.ckf.cbi1;

import static dev.kvrelay.ckf.cbi1.Cbi1Reference.bodyChecksum;
import static dev.kvrelay.ckf.cbi1.Cbi1Reference.hex;
import static dev.kvrelay.ckf.cbi1.Cbi1Reference.storedChecksum;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.ckf.cbi1.Cbi1DecodeException.Reason;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** vectors.md §5 (= ckf-cbi1.md §8.1 CBI1 and §8.3): computed frames, upstream behaviours, derived limits. */
class Cbi1VectorsTest {
  /** Upstream fixture {@code FilterFormat(seed = 0x5EED, B = 1024)}. */
  static final CkfFormat FIXTURE = CkfFormat.of(0x5EED, 1024);

  static final String DELTA_HEX = "434249310100020010040100ed5e000000000000000400000000000007000000000000000500000000"
      + "0000004ef6466104000000000000000200000003000000ddddccccbbbbaaaae80300002a00000000000000";
  static final String EMPTY_DELTA_HEX = "434249310100020010040100ed5e00000000000000040000000000000700000000000000"
      + "0100000000000000f0a4c269000000000000000000000000";
  static final String CHUNK_HEX = "434249310100010010040100334ab5d166ceee5d0200000000000000efcdab89674523010900000000"
      + "0000009dc0f2370000000001000000000000000000000034120000cdab01000000000000000000";

  static Cbi1DecodeException.Reason decodeFailure(CkfFormat expected, byte[] frame) {
    Cbi1DecodeException e =
        catchThrowableOfType(Cbi1DecodeException.class, () -> Cbi1Decoder.decode(expected, frame));
    assertThat(e).as("decode must fail").isNotNull();
    return e.reason();
  }

  @Nested
  class ComputedFrames {
    @Test
    void deltaFrameEncodesByteForByte() throws Exception {
      byte[] frame = Cbi1Encoder.encodeDelta(
          FIXTURE, 7, 4, 5, new int[] {3, 1000}, new long[] {0xAAAABBBBCCCCDDDDL, 42}, 2);
      assertThat(hex(frame)).isEqualTo(DELTA_HEX);
      assertThat(frame).hasSize(84);
    }

    @Test
    void deltaFrameChecksumIsTheSpecVectorStoredAndRecomputed() {
      byte[] frame = hex(DELTA_HEX);
      assertThat(storedChecksum(frame)).isEqualTo(0x6146F64E);
      assertThat(bodyChecksum(frame)).isEqualTo(0x6146F64E);
    }

    @Test
    void deltaFrameDecodes() throws Exception {
      Cbi1Frame f = Cbi1Decoder.decode(FIXTURE, hex(DELTA_HEX));
      assertThat(f).isEqualTo(new Cbi1Frame.Delta(new Cbi1Header(0x5EED, 1024, 7, 5), 4,
          new int[] {3, 1000}, new long[] {0xAAAABBBBCCCCDDDDL, 42}));
    }

    @Test
    void emptyDeltaEncodesByteForByte() throws Exception {
      byte[] frame = Cbi1Encoder.encodeDelta(FIXTURE, 7, 0, 1, new int[0], new long[0], 0);
      assertThat(hex(frame)).isEqualTo(EMPTY_DELTA_HEX);
      assertThat(frame).hasSize(60);
      assertThat(bodyChecksum(frame)).isEqualTo(0x69C2A4F0);
      assertThat(storedChecksum(frame)).isEqualTo(0x69C2A4F0);
    }

    /** Decision "lenient CBI1 vs strict core": the codec decodes an empty delta; the core rejects it. */
    @Test
    void emptyDeltaDecodes_lenientCbi1Decision() throws Exception {
      Cbi1Frame f = Cbi1Decoder.decode(FIXTURE, hex(EMPTY_DELTA_HEX));
      assertThat(f).isEqualTo(new Cbi1Frame.Delta(new Cbi1Header(0x5EED, 1024, 7, 1), 0, new int[0], new long[0]));
    }

    @Test
    void chunkFrameEncodesByteForByte() throws Exception {
      CkfFormat format = CkfFormat.withDefaultSeed(2);
      long[] words = {0x0001ABCD00001234L, 0};
      List<byte[]> frames = Cbi1Encoder.encodeSnapshot(format, 0x0123456789ABCDEFL, 9, words);
      assertThat(frames).hasSize(1);
      assertThat(hex(frames.get(0))).isEqualTo(CHUNK_HEX);
      assertThat(hex(Cbi1Encoder.encodeSnapshotChunk(format, 0x0123456789ABCDEFL, 9, words, 0))).isEqualTo(CHUNK_HEX);
      assertThat(frames.get(0)).hasSize(80);
    }

    @Test
    void chunkFrameChecksumIsTheSpecVectorStoredAndRecomputed() {
      byte[] frame = hex(CHUNK_HEX);
      assertThat(storedChecksum(frame)).isEqualTo(0x37F2C09D);
      assertThat(bodyChecksum(frame)).isEqualTo(0x37F2C09D);
    }

    @Test
    void chunkFrameDecodesAndAssembles() throws Exception {
      CkfFormat format = CkfFormat.withDefaultSeed(2);
      Cbi1Frame f = Cbi1Decoder.decode(format, hex(CHUNK_HEX));
      assertThat(f).isEqualTo(new Cbi1Frame.SnapshotChunk(
          new Cbi1Header(CkfFormat.DEFAULT_SEED, 2, 0x0123456789ABCDEFL, 9), 0, 1, 0,
          new long[] {0x0001ABCD00001234L, 0}));
      Optional<AssembledSnapshot> done = new SnapshotAssembly(format).accept(hex(CHUNK_HEX));
      assertThat(done).contains(new AssembledSnapshot(9, new long[] {0x0001ABCD00001234L, 0}));
      assertThat(done.orElseThrow().nonZeroImages())
          .isEqualTo(new BucketImages(new int[] {0}, new long[] {0x0001ABCD00001234L}));
    }

    @Test
    void encodeIntoReusedBufferAtOffsetWritesTheSameBytes() throws Exception {
      byte[] buf = new byte[200];
      Arrays.fill(buf, (byte) 0x5A); // dirty buffer: the encoder must not rely on zeros
      int n = Cbi1Encoder.encodeDeltaInto(
          FIXTURE, 7, 4, 5, new int[] {3, 1000}, new long[] {0xAAAABBBBCCCCDDDDL, 42}, 2, buf, 7);
      assertThat(n).isEqualTo(84);
      assertThat(hex(Arrays.copyOfRange(buf, 7, 7 + n))).isEqualTo(DELTA_HEX);
      assertThat(buf[6]).isEqualTo((byte) 0x5A);
      assertThat(buf[7 + n]).isEqualTo((byte) 0x5A);
      assertThat(Cbi1Decoder.decode(FIXTURE, buf, 7, n)).isEqualTo(Cbi1Decoder.decode(FIXTURE, hex(DELTA_HEX)));

      n = Cbi1Encoder.encodeSnapshotChunkInto(CkfFormat.withDefaultSeed(2), 0x0123456789ABCDEFL, 9,
          new long[] {0x0001ABCD00001234L, 0}, 0, buf, 3);
      assertThat(hex(Arrays.copyOfRange(buf, 3, 3 + n))).isEqualTo(CHUNK_HEX);
    }
  }

  /** Upstream behaviour vectors ({@code publication/cbi1.rs} tests). */
  @Nested
  class UpstreamBehaviours {
    static final int B20 = 1 << 20;

    long[] twoChunkWords() {
      long[] words = new long[B20];
      words[0] = 11;
      words[524_289] = 22;
      words[B20 - 1] = 33;
      return words;
    }

    @Test
    void deltaRoundTrips() throws Exception {
      int[] buckets = {3, 1000};
      long[] words = {0xAAAABBBBCCCCDDDDL, 42};
      Cbi1Frame f = Cbi1Decoder.decode(FIXTURE, Cbi1Encoder.encodeDelta(FIXTURE, 7, 4, 5, buckets, words, 2));
      assertThat(f).isInstanceOfSatisfying(Cbi1Frame.Delta.class, d -> {
        assertThat(d.dcId()).isEqualTo(7);
        assertThat(d.baseEpoch()).isEqualTo(4);
        assertThat(d.epoch()).isEqualTo(5);
        assertThat(d.buckets()).containsExactly(3, 1000);
        assertThat(d.words()).containsExactly(0xAAAABBBBCCCCDDDDL, 42);
      });
    }

    @Test
    void twoChunkSnapshotReassembles() throws Exception {
      CkfFormat format = CkfFormat.of(0x5EED, B20);
      long[] words = twoChunkWords();
      List<byte[]> frames = Cbi1Encoder.encodeSnapshot(format, 9, 6, words);
      assertThat(frames).hasSize(2);
      assertThat(frames.get(0)).hasSize(4_194_368);
      assertThat(frames.get(1)).hasSize(4_194_368);
      byte[][] reference = Cbi1Reference.snapshot(0x5EED, B20, 9, 6, words);
      assertThat(frames.get(0)).isEqualTo(reference[0]);
      assertThat(frames.get(1)).isEqualTo(reference[1]);

      SnapshotAssembly assembly = new SnapshotAssembly(format);
      assertThat(assembly.accept(frames.get(0))).isEmpty();
      AssembledSnapshot done = assembly.accept(frames.get(1)).orElseThrow();
      assertThat(done.epoch()).isEqualTo(6);
      assertThat(done.words()).isEqualTo(twoChunkWords());
      assertThat(done.nonZeroImages())
          .isEqualTo(new BucketImages(new int[] {0, 524_289, B20 - 1}, new long[] {11, 22, 33}));
      Cbi1Frame.SnapshotChunk second = (Cbi1Frame.SnapshotChunk) Cbi1Decoder.decode(format, frames.get(1));
      assertThat(second.dcId()).isEqualTo(9);
      assertThat(second.chunkIndex()).isEqualTo(1);
      assertThat(second.chunkCount()).isEqualTo(2);
      assertThat(second.bucketOffset()).isEqualTo(524_288);
    }

    @Test
    void chunkOneFirstIsChunkSequence() throws Exception {
      CkfFormat format = CkfFormat.of(0x5EED, B20);
      byte[] chunk1 = Cbi1Encoder.encodeSnapshotChunk(format, 9, 6, twoChunkWords(), 1);
      SnapshotAssembly assembly = new SnapshotAssembly(format);
      assertThatThrownBy(() -> assembly.accept(chunk1))
          .isInstanceOfSatisfying(Cbi1DecodeException.class,
              e -> assertThat(e.reason()).isEqualTo(Reason.CHUNK_SEQUENCE));
    }

    @Test
    void frameOf4194369BytesIsFrameTooLarge() throws Exception {
      assertThat(decodeFailure(FIXTURE, new byte[4_194_369])).isEqualTo(Reason.FRAME_TOO_LARGE);
      // a valid full chunk plus one byte: the size check comes before magic and checksum
      byte[] full = Cbi1Encoder.encodeSnapshotChunk(CkfFormat.of(0x5EED, B20), 9, 6, twoChunkWords(), 0);
      assertThat(Cbi1Decoder.decode(CkfFormat.of(0x5EED, B20), full)).isInstanceOf(Cbi1Frame.SnapshotChunk.class);
      assertThat(decodeFailure(CkfFormat.of(0x5EED, B20), Arrays.copyOf(full, full.length + 1)))
          .isEqualTo(Reason.FRAME_TOO_LARGE);
    }

    @Test
    void deltaWith349526ImagesIsDeltaImageCount() throws Exception {
      int n = 349_526;
      int[] buckets = new int[n];
      long[] words = new long[n];
      assertThatThrownBy(() -> Cbi1Encoder.encodeDelta(FIXTURE, 7, 4, 5, buckets, words, n))
          .isInstanceOfSatisfying(Cbi1EncodeException.class,
              e -> assertThat(e.reason()).isEqualTo(Cbi1EncodeException.Reason.DELTA_IMAGE_COUNT));
      // 349 525 images is the largest delta and still fits a frame
      byte[] largest = Cbi1Encoder.encodeDelta(FIXTURE, 7, 4, 5, buckets, words, n - 1);
      assertThat(largest).hasSize(4_194_360);
      assertThat(((Cbi1Frame.Delta) Cbi1Decoder.decode(FIXTURE, largest)).imageCount()).isEqualTo(n - 1);
      // decoder: a count field of 349 526 is refused before the body length is even compared
      byte[] forged = Cbi1Reference.delta(0x5EED, 1024, 7, 4, 5, n, new int[0], new long[0]);
      assertThat(decodeFailure(FIXTURE, forged)).isEqualTo(Reason.DELTA_IMAGE_COUNT);
      // with all its images present the frame is 4 194 372 bytes: the size check (step 2) fires first
      byte[] complete = Cbi1Reference.delta(0x5EED, 1024, 7, 4, 5, buckets, words);
      assertThat(complete).hasSize(4_194_372);
      assertThat(decodeFailure(FIXTURE, complete)).isEqualTo(Reason.FRAME_TOO_LARGE);
    }

    @Test
    void chunkWith524289WordsIsSnapshotChunkWordCount() throws Exception {
      CkfFormat format = CkfFormat.of(0x5EED, B20);
      long[] words = new long[524_289];
      byte[] frame = Cbi1Reference.chunk(0x5EED, B20, 9, 6, 0, 2, 0, words);
      // As a whole frame it is 4 194 376 bytes, so the frame-size check (step 2) fires first ...
      assertThat(decodeFailure(format, frame)).isEqualTo(Reason.FRAME_TOO_LARGE);
      // ... and the body check (step 9) reports the word count, as upstream's body parser does.
      Cbi1Header header = new Cbi1Header(0x5EED, B20, 9, 6);
      Cbi1DecodeException e = catchThrowableOfType(Cbi1DecodeException.class,
          () -> Cbi1Decoder.decodeChunkBody(header, frame, 48, frame.length - 48));
      assertThat(e.reason()).isEqualTo(Reason.SNAPSHOT_CHUNK_WORD_COUNT);
    }

    @Test
    void fortySevenBytesIsTruncated() {
      assertThat(decodeFailure(FIXTURE, Arrays.copyOf(hex(DELTA_HEX), 47))).isEqualTo(Reason.TRUNCATED);
      assertThat(decodeFailure(FIXTURE, new byte[47])).isEqualTo(Reason.TRUNCATED);
    }

    @Test
    void appendedByteIsChecksum() {
      byte[] frame = hex(DELTA_HEX);
      assertThat(decodeFailure(FIXTURE, Arrays.copyOf(frame, frame.length + 1))).isEqualTo(Reason.CHECKSUM);
    }

    @Test
    void seedXorOneIsFormatMismatch() {
      byte[] frame = hex(DELTA_HEX);
      Reason viaExpected = decodeFailure(CkfFormat.of(0x5EED ^ 1, 1024), frame);
      assertThat(viaExpected).isEqualTo(Reason.FORMAT_MISMATCH_SEED);
      assertThat(viaExpected.upstreamName()).isEqualTo("Format(Mismatch)");
      byte[] patched = Cbi1Reference.patched(frame, 12, (byte) (0xED ^ 1));
      assertThat(bodyChecksum(patched)).isEqualTo(storedChecksum(patched)); // header is not checksummed
      assertThat(decodeFailure(FIXTURE, patched)).isEqualTo(Reason.FORMAT_MISMATCH_SEED);
    }

    @Test
    void flags0x8000IsFlags() {
      byte[] frame = Cbi1Reference.resealed(Cbi1Reference.patched(hex(DELTA_HEX), 6, (byte) 0x00, (byte) 0x80));
      assertThat(bodyChecksum(frame)).isEqualTo(0x6146F64E);
      assertThat(decodeFailure(FIXTURE, frame)).isEqualTo(Reason.FLAGS);
    }

    @Test
    void formatVersion2IsFormatVersion() {
      byte[] frame = Cbi1Reference.resealed(Cbi1Reference.patched(hex(DELTA_HEX), 10, (byte) 2, (byte) 0));
      assertThat(bodyChecksum(frame)).isEqualTo(storedChecksum(frame));
      Reason r = decodeFailure(FIXTURE, frame);
      assertThat(r).isEqualTo(Reason.FORMAT_VERSION);
      assertThat(r.upstreamName()).isEqualTo("Format(Version)");
    }
  }

  @Nested
  class DerivedLimits {
    @Test
    void constantsMatchTheSpec() {
      assertThat(Cbi1.MAGIC).isEqualTo(Cbi1Reference.le(new byte[] {'C', 'B', 'I', '1'}).getInt(0));
      assertThat(Cbi1.WIRE_VERSION).isEqualTo(1);
      assertThat(Cbi1.HEADER_LENGTH).isEqualTo(48);
      assertThat(Cbi1.SNAPSHOT_CHUNK_BUCKETS).isEqualTo(524_288);
      assertThat(Cbi1.MAX_BUCKET_COUNT).isEqualTo(16_777_216);
      assertThat(Cbi1.MAX_FRAME_BYTES).isEqualTo(4_194_368);
      assertThat(Cbi1.MAX_DELTA_IMAGES).isEqualTo(349_525);
      assertThat(Cbi1.MAX_CHUNK_COUNT).isEqualTo(32);
      assertThat(Cbi1.FLAG_SNAPSHOT_CHUNK).isEqualTo(1);
      assertThat(Cbi1.FLAG_DELTA).isEqualTo(2);
      assertThat(Cbi1.MIN_GRPC_MAX_MESSAGE_BYTES).isEqualTo(4_259_904);
      assertThat(Cbi1.MIN_PUBLICATION_QUEUE_BYTES).isEqualTo(4_194_624);
      assertThat(Cbi1.HUB_MAX_QUEUED_DELTA_BYTES).isEqualTo(4_194_616);
    }

    @Test
    void frameSizes() {
      assertThat(Cbi1.chunkFrameLength(524_288)).isEqualTo(4_194_368);
      assertThat(Cbi1.chunkFrameLength(2)).isEqualTo(80); // one-chunk snapshot for B <= 524 288: 64 + 8B
      assertThat(Cbi1.chunkFrameLength(524_288 / 2)).isEqualTo(64 + 8 * 262_144);
      assertThat(Cbi1.deltaFrameLength(0)).isEqualTo(60);
      assertThat(Cbi1.deltaFrameLength(2)).isEqualTo(84);
      assertThat(Cbi1.deltaFrameLength(349_525)).isEqualTo(4_194_360);
      assertThat(Cbi1.chunkCount(2)).isEqualTo(1);
      assertThat(Cbi1.chunkCount(524_288)).isEqualTo(1);
      assertThat(Cbi1.chunkCount(1 << 20)).isEqualTo(2);
      assertThat(Cbi1.chunkCount(1 << 24)).isEqualTo(32);
      assertThat(Cbi1.chunkWordCount(1 << 20, 1)).isEqualTo(524_288);
      assertThat(Cbi1.chunkWordCount(1024, 0)).isEqualTo(1024);
      assertThat(Cbi1.chunkWordCount(1024, 1)).isZero();
      assertThat(Cbi1.chunkWordCount(1024, -1)).isZero();
    }
  }
}
