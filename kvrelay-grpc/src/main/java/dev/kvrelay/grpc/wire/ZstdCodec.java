package dev.kvrelay.grpc.wire;

import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import com.github.luben.zstd.util.Native;
import io.grpc.Codec;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.slf4j.LoggerFactory;

/**
 * Immutable and thread-safe: the {@code "zstd"} gRPC message encoding (wan-grpc.md §6.1) on libzstd through
 * zstd-jni, and the compressor/decompressor registries server and client share. Upstream's server accepts zstd
 * requests and compresses responses with it when the client advertises it; so does ours. When the native library
 * cannot load on a platform, {@link #AVAILABLE} is false, the registries hold only gRPC's defaults and both ends
 * negotiate identity (the spec's fallback), logged once.
 *
 * <p>Decompressed sizes stay bounded: gRPC applies the inbound message limit (MAX_MESSAGE_BYTES) to the
 * decompressed bytes, so a small compressed frame cannot expand past it.
 */
public final class ZstdCodec implements Codec {
  /** The message-encoding name gRPC puts in {@code grpc-encoding} / {@code grpc-accept-encoding}. */
  public static final String ENCODING = "zstd";

  /** True when libzstd loaded and the codec is registered. */
  public static final boolean AVAILABLE = loadNative();

  private static final ZstdCodec INSTANCE = new ZstdCodec();
  private static final CompressorRegistry COMPRESSORS = compressorRegistry();
  private static final DecompressorRegistry DECOMPRESSORS = decompressorRegistry(true);
  private static final DecompressorRegistry QUIET_DECOMPRESSORS = decompressorRegistry(false);

  private ZstdCodec() {}

  /** The codec, whether or not the native library is available (its streams fail without it). */
  public static ZstdCodec instance() {
    return INSTANCE;
  }

  /** gRPC's default compressors plus zstd when {@link #AVAILABLE}. */
  public static CompressorRegistry compressors() {
    return COMPRESSORS;
  }

  /** gRPC's default decompressors plus zstd (advertised in {@code grpc-accept-encoding}) when {@link #AVAILABLE}. */
  public static DecompressorRegistry decompressors() {
    return DECOMPRESSORS;
  }

  /**
   * gRPC's default decompressors plus zstd when {@link #AVAILABLE}, advertised in {@code grpc-accept-encoding} only
   * when {@code advertise} (a peer may still send zstd unasked; it is then decoded).
   */
  public static DecompressorRegistry decompressors(boolean advertise) {
    return advertise ? DECOMPRESSORS : QUIET_DECOMPRESSORS;
  }

  @Override
  public String getMessageEncoding() {
    return ENCODING;
  }

  @Override
  public OutputStream compress(OutputStream os) throws IOException {
    return new ZstdOutputStreamNoFinalizer(os);
  }

  @Override
  public InputStream decompress(InputStream is) throws IOException {
    return new ZstdInputStreamNoFinalizer(is);
  }

  private static boolean loadNative() {
    try {
      Native.load();
      return true;
    } catch (LinkageError | RuntimeException e) {
      LoggerFactory.getLogger(ZstdCodec.class).warn(
          "zstd native library unavailable; gRPC messages use identity encoding only: {}", e.toString());
      return false;
    }
  }

  private static CompressorRegistry compressorRegistry() {
    CompressorRegistry r = CompressorRegistry.newEmptyInstance();
    CompressorRegistry defaults = CompressorRegistry.getDefaultInstance();
    for (String name : new String[] {"gzip", "identity"}) {
      io.grpc.Compressor c = defaults.lookupCompressor(name);
      if (c != null) {
        r.register(c);
      }
    }
    if (AVAILABLE) {
      r.register(INSTANCE);
    }
    return r;
  }

  private static DecompressorRegistry decompressorRegistry(boolean advertise) {
    DecompressorRegistry r = DecompressorRegistry.getDefaultInstance();
    return AVAILABLE ? r.with(INSTANCE, advertise) : r;
  }
}
