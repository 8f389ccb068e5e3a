package dev.kvrelay.api;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Stateless and thread-safe: the one validator of a stream request's {@code subscriber_id} (wan-grpc.md §2.1
 * step 2), shared by the in-process API and the gRPC server: non-empty, at most {@value #MAX_UTF8_BYTES} UTF-8
 * bytes, no character of Unicode category Cc (U+0000–U+001F, U+007F–U+009F); never truncated.
 */
public final class SubscriberId {
  /** Largest subscriber id, in UTF-8 bytes. */
  public static final int MAX_UTF8_BYTES = 128;

  private SubscriberId() {}

  /**
   * Returns {@code value} if it is a valid subscriber id.
   *
   * @throws RelayException {@link RelayErrorReason#INVALID_REQUEST} naming the broken rule
   */
  public static String check(@Nullable String value) throws RelayException {
    if (value == null || value.isEmpty()) {
      throw new RelayException(RelayErrorReason.INVALID_REQUEST, "subscriber_id must not be empty");
    }
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_UTF8_BYTES) {
      throw new RelayException(RelayErrorReason.INVALID_REQUEST,
          "subscriber_id must be at most " + MAX_UTF8_BYTES + " UTF-8 bytes, got " + bytes);
    }
    for (int i = 0; i < value.length(); ) {
      int cp = value.codePointAt(i);
      if (Character.isISOControl(cp)) {
        throw new RelayException(RelayErrorReason.INVALID_REQUEST,
            "subscriber_id must not contain control character U+" + String.format("%04X", cp));
      }
      i += Character.charCount(cp);
    }
    return value;
  }
}
