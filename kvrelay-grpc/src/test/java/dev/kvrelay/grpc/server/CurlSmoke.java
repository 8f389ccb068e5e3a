package dev.kvrelay.grpc.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.kvrelay.grpc.proto.RelayInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;

/**
 * Thread-safe (stateless): the spec's smoke check (wan-grpc.md §6.5, C46), shared by the gRPC conformance tests and
 * the launcher's process test: GetRelayInfo over {@code curl --http2-prior-knowledge} (h2c) with the request body
 * {@code FD 07 31 52 56 4B}, a response message starting {@code 08 01} and the trailer {@code grpc-status: 0}.
 */
public final class CurlSmoke {
  private static final Path CURL = Path.of("/usr/bin/curl");

  private CurlSmoke() {}

  /**
   * True when {@code /usr/bin/curl} speaks HTTP/2; false when it does not and CI is not set (the caller skips).
   *
   * @throws AssertionError under {@code CI=true} without curl HTTP/2 (CI installs it, so a missing one fails)
   */
  public static boolean available() throws IOException, InterruptedException {
    boolean http2 = Files.isExecutable(CURL) && curlHasHttp2();
    if (!http2 && "true".equals(System.getenv("CI"))) {
      throw new AssertionError("CI=true requires curl with HTTP/2");
    }
    return http2;
  }

  /**
   * Calls GetRelayInfo on {@code 127.0.0.1:port} with curl and checks the frame and the trailer; returns the
   * decoded response. Call only when {@link #available()}.
   */
  public static RelayInfo getRelayInfo(int port) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("c46");
    try {
      Path body = dir.resolve("request.bin");
      Path out = dir.resolve("response.bin");
      Path log = dir.resolve("curl.log");
      // One uncompressed gRPC frame: GetRelayInfoRequest carrying only the contract marker (field 127, fixed32).
      Files.write(body, HexFormat.of().parseHex("00" + "00000006" + "fd073152564b"));
      Process p = new ProcessBuilder(CURL.toString(), "-sS", "-v", "--http2-prior-knowledge", "--max-time", "10",
          "-H", "content-type: application/grpc", "-H", "te: trailers", "--data-binary", "@" + body,
          "-o", out.toString(), "http://127.0.0.1:" + port + "/dynamo.kvrelay.v1.KvEventRelay/GetRelayInfo")
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      assertThat(p.waitFor(15, TimeUnit.SECONDS)).as("curl finished").isTrue();
      String trace = Files.readString(log, StandardCharsets.ISO_8859_1);
      assertThat(p.exitValue()).as("curl exit; %s", trace).isZero();
      byte[] frame = Files.readAllBytes(out);
      assertThat(frame.length).as("gRPC frame; %s", trace).isGreaterThan(7);
      assertThat(frame[0]).as("uncompressed").isZero();
      int length = ((frame[1] & 0xFF) << 24) | ((frame[2] & 0xFF) << 16) | ((frame[3] & 0xFF) << 8) | (frame[4] & 0xFF);
      assertThat(frame.length).isEqualTo(5 + length);
      assertThat(frame[5]).as("message starts 08 01 (protocol_version 1)").isEqualTo((byte) 0x08);
      assertThat(frame[6]).isEqualTo((byte) 0x01);
      assertThat(trace).as("trailers carry grpc-status 0").containsPattern("(?m)^< grpc-status: 0\\r?$");
      return RelayInfo.parseFrom(ByteString.copyFrom(frame, 5, length));
    } finally {
      try (var files = Files.list(dir)) {
        for (Path file : files.toList()) {
          Files.deleteIfExists(file);
        }
      }
      Files.deleteIfExists(dir);
    }
  }

  private static boolean curlHasHttp2() throws IOException, InterruptedException {
    Process p = new ProcessBuilder(CURL.toString(), "--version").redirectErrorStream(true).start();
    String version = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return p.waitFor(5, TimeUnit.SECONDS) && p.exitValue() == 0 && version.matches("(?s).*Features:[^\\n]*\\bHTTP2\\b.*");
  }
}
