package dev.kvrelay.ckf.cbi1;

import dev.kvrelay.api.CkfFormat;

/**
 * Stateless and thread-safe: CBI1 constants, header offsets and the frame-size arithmetic derived from
 * them ({@code ckf-cbi1.md} §6.1–§6.4, {@code vectors.md} §5).
 */
public final class Cbi1 {
  /** The magic {@code "CBI1"} ({@code 43 42 49 31}) read as a little-endian u32. */
  public static final int MAGIC = 0x3149_4243;
  /** The CBI1 wire version (u16 at offset 4). */
  public static final int WIRE_VERSION = 1;
  /** Header length in bytes; the checksummed body starts here. */
  public static final int HEADER_LENGTH = 48;
  /** Dense bucket words per snapshot chunk (512 Ki words = 4 MiB). */
  public static final int SNAPSHOT_CHUNK_BUCKETS = 524_288;
  /** Largest bucket count CBI1 carries (2^24). */
  public static final int MAX_BUCKET_COUNT = CkfFormat.MAX_BUCKET_COUNT;
  /** Snapshot chunk body prefix: chunk_index u32, chunk_count u32, bucket_offset u64. */
  public static final int CHUNK_PREFIX_LENGTH = 16;
  /** Delta body prefix: base_epoch u64, image_count u32. */
  public static final int DELTA_PREFIX_LENGTH = 12;
  /** One delta image: bucket u32, absolute word u64. */
  public static final int DELTA_IMAGE_LENGTH = 12;
  /** Largest frame: 48 + 16 + 524 288 · 8 = 4 194 368 bytes (one full chunk). */
  public static final int MAX_FRAME_BYTES =
      HEADER_LENGTH + CHUNK_PREFIX_LENGTH + SNAPSHOT_CHUNK_BUCKETS * Long.BYTES;
  /** {@code max_delta_images()} = (4 194 368 − 48 − 12) / 12 = 349 525. */
  public static final int MAX_DELTA_IMAGES =
      (MAX_FRAME_BYTES - HEADER_LENGTH - DELTA_PREFIX_LENGTH) / DELTA_IMAGE_LENGTH;
  /** Largest chunk count of a valid snapshot: ceil(2^24 / 524 288) = 32. */
  public static final int MAX_CHUNK_COUNT = MAX_BUCKET_COUNT / SNAPSHOT_CHUNK_BUCKETS;
  /** Flags value of a snapshot chunk frame. */
  public static final int FLAG_SNAPSHOT_CHUNK = 1;
  /** Flags value of a delta frame. */
  public static final int FLAG_DELTA = 2;
  /** Headroom above {@link #MAX_FRAME_BYTES} for the gRPC envelope ({@code CBI1_ENVELOPE_HEADROOM}, 64 Ki). */
  public static final int ENVELOPE_HEADROOM = 65_536;
  /** Smallest allowed gRPC {@code max_message_bytes}: 4 194 368 + 65 536 = 4 259 904. */
  public static final int MIN_GRPC_MAX_MESSAGE_BYTES = MAX_FRAME_BYTES + ENVELOPE_HEADROOM;
  /** Bytes a queued frame is charged on top of its payload in publication queues. */
  public static final int QUEUED_FRAME_OVERHEAD = 256;
  /** Smallest allowed publication queue byte budget: 4 194 368 + 256 = 4 194 624. */
  public static final int MIN_PUBLICATION_QUEUE_BYTES = MAX_FRAME_BYTES + QUEUED_FRAME_OVERHEAD;
  /** The hub's internal largest-delta check: 48 + 12 + 12 · 349 525 + 256 = 4 194 616. */
  public static final int HUB_MAX_QUEUED_DELTA_BYTES =
      HEADER_LENGTH + DELTA_PREFIX_LENGTH + DELTA_IMAGE_LENGTH * MAX_DELTA_IMAGES + QUEUED_FRAME_OVERHEAD;

  // Header field offsets (§6.2).
  static final int OFF_MAGIC = 0;
  static final int OFF_WIRE_VERSION = 4;
  static final int OFF_FLAGS = 6;
  static final int OFF_FINGERPRINT_BITS = 8;
  static final int OFF_SLOTS_PER_BUCKET = 9;
  static final int OFF_FORMAT_VERSION = 10;
  static final int OFF_SEED = 12;
  static final int OFF_BUCKET_COUNT = 20;
  static final int OFF_DC_ID = 28;
  static final int OFF_EPOCH = 36;
  static final int OFF_CHECKSUM = 44;

  private Cbi1() {}

  /**
   * Chunks of a snapshot of {@code bucketCount} words: {@code ceil(bucketCount / 524 288)}.
   *
   * @param bucketCount a valid bucket count (power of two in {@code [2, 2^24]})
   */
  public static int chunkCount(int bucketCount) {
    return (bucketCount + SNAPSHOT_CHUNK_BUCKETS - 1) / SNAPSHOT_CHUNK_BUCKETS;
  }

  /** Words carried by chunk {@code chunkIndex} of a snapshot of {@code bucketCount} words (0 if out of range). */
  public static int chunkWordCount(int bucketCount, int chunkIndex) {
    long offset = (long) chunkIndex * SNAPSHOT_CHUNK_BUCKETS;
    if (chunkIndex < 0 || offset >= bucketCount) {
      return 0;
    }
    return (int) Math.min(SNAPSHOT_CHUNK_BUCKETS, bucketCount - offset);
  }

  /**
   * Length of a chunk frame carrying {@code words} words: {@code 64 + 8 · words}.
   *
   * @param words in {@code [0, SNAPSHOT_CHUNK_BUCKETS]}
   */
  public static int chunkFrameLength(int words) {
    return HEADER_LENGTH + CHUNK_PREFIX_LENGTH + words * Long.BYTES;
  }

  /**
   * Length of a delta frame carrying {@code imageCount} images: {@code 60 + 12 · imageCount}.
   *
   * @param imageCount in {@code [0, MAX_DELTA_IMAGES]}
   */
  public static int deltaFrameLength(int imageCount) {
    return HEADER_LENGTH + DELTA_PREFIX_LENGTH + imageCount * DELTA_IMAGE_LENGTH;
  }
}
