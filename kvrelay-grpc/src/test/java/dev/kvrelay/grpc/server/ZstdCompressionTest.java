package dev.kvrelay.grpc.server;

import static dev.kvrelay.grpc.server.KvEventRelayConformanceTest.catalogProducer;
import static dev.kvrelay.grpc.server.KvEventRelayConformanceTest.subscribe;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.kvrelay.grpc.proto.FilterUpdate;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.proto.RelayInfoRequest;
import dev.kvrelay.grpc.wire.WireCodec;
import dev.kvrelay.grpc.wire.ZstdCodec;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.CompressorRegistry;
import io.grpc.DecompressorRegistry;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * zstd message compression (wan-grpc.md §6.1, decision "zstd support is optional — negotiation falls back to
 * identity"; we support it): the codec's frames are read by Debian's {@code zstd} CLI and the reverse (independent
 * libzstd); over loopback a client that advertises zstd gets zstd responses, one that does not gets identity, zstd
 * requests are accepted, and a small zstd request that expands past the message limit is refused.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZstdCompressionTest {
  private static final Metadata.Key<String> ENCODING =
      Metadata.Key.of("grpc-encoding", Metadata.ASCII_STRING_MARSHALLER);

  /** Records the {@code grpc-encoding} response header of every call (null when absent). */
  private static final class EncodingRecorder implements ClientInterceptor {
    final List<String> encodings = new CopyOnWriteArrayList<>();

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
          super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
            @Override
            public void onHeaders(Metadata h) {
              String e = h.get(ENCODING);
              encodings.add(e == null ? "identity" : e);
              super.onHeaders(h);
            }
          }, headers);
        }
      };
    }
  }

  private static ManagedChannel channel(ServerFixture f, boolean zstd) {
    return NettyChannelBuilder.forAddress("127.0.0.1", f.server.port()).usePlaintext()
        .maxInboundMessageSize(ServerFixture.MAX_INBOUND)
        .compressorRegistry(zstd ? ZstdCodec.compressors() : CompressorRegistry.getDefaultInstance())
        .decompressorRegistry(zstd ? ZstdCodec.decompressors() : DecompressorRegistry.getDefaultInstance())
        .build();
  }

  private static byte[] payload() {
    byte[] b = new byte[1 << 20];
    new Random(7).nextBytes(b);
    java.util.Arrays.fill(b, 1000, 600_000, (byte) 0); // compressible like a sparse CKF snapshot
    return b;
  }

  private static Path zstdCli() {
    Path cli = Path.of("/usr/bin/zstd");
    boolean ci = "true".equals(System.getenv("CI"));
    assumeTrue(Files.isExecutable(cli) || ci, "the zstd CLI is not installed");
    assertThat(cli).as("CI=true requires the zstd CLI (Debian package zstd)").isExecutable();
    return cli;
  }

  @Test
  void theCodecIsLoadedAndItsFramesAreReadByTheZstdCliAndTheReverse() throws Exception {
    assertThat(ZstdCodec.AVAILABLE).as("libzstd loads on this platform").isTrue();
    Path cli = zstdCli();
    byte[] data = payload();
    ByteArrayOutputStream compressed = new ByteArrayOutputStream();
    try (OutputStream out = ZstdCodec.instance().compress(compressed)) {
      out.write(data);
    }
    assertThat(compressed.size()).as("compressed").isLessThan(data.length);
    Process d = new ProcessBuilder(cli.toString(), "-d", "-c", "-q").start();
    d.getOutputStream().write(compressed.toByteArray());
    d.getOutputStream().close();
    byte[] decoded = d.getInputStream().readAllBytes();
    assertThat(d.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(d.exitValue()).isZero();
    assertThat(decoded).isEqualTo(data);

    Process c = new ProcessBuilder(cli.toString(), "-c", "-q", "-3").start();
    c.getOutputStream().write(data);
    c.getOutputStream().close();
    byte[] theirs = c.getInputStream().readAllBytes();
    assertThat(c.waitFor(20, TimeUnit.SECONDS)).isTrue();
    try (InputStream in = ZstdCodec.instance().decompress(new java.io.ByteArrayInputStream(theirs))) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }

  @Test
  void aClientAdvertisingZstdGetsZstdResponsesAndZstdRequestsAreAccepted() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      f.worker(1).start();
      ProducerIdentity producer = catalogProducer(f);
      EncodingRecorder recorder = new EncodingRecorder();
      ManagedChannel ch = channel(f, true);
      try {
        Channel intercepted = ClientInterceptors.intercept(ch, recorder);
        RelayInfo info = KvEventRelayGrpc.newBlockingStub(intercepted).withCompression(ZstdCodec.ENCODING)
            .withDeadlineAfter(ServerFixture.DEADLINE_MS, TimeUnit.MILLISECONDS)
            .getRelayInfo(WireCodec.relayInfoRequest());
        assertThat(info.getProtocolVersion()).isEqualTo(1);

        ServerFixture.Collector<FilterUpdate> pool = new ServerFixture.Collector<>();
        KvEventRelayGrpc.newStub(intercepted).subscribeKvPool(subscribe("zstd/ckf", producer), pool);
        List<FilterUpdate> chunks = KvEventRelayConformanceTest.snapshot(pool);
        assertThat(chunks).allMatch(KvEventRelayConformanceTest::allWordsZero);
        pool.cancel();
        assertThat(recorder.encodings).as("both responses were zstd").containsExactly("zstd", "zstd");
      } finally {
        ch.shutdownNow();
      }
    }
  }

  @Test
  void aClientThatDoesNotAdvertiseZstdGetsIdentity() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      EncodingRecorder recorder = new EncodingRecorder();
      ManagedChannel ch = channel(f, false);
      try {
        RelayInfo info = KvEventRelayGrpc.newBlockingStub(ClientInterceptors.intercept(ch, recorder))
            .withDeadlineAfter(ServerFixture.DEADLINE_MS, TimeUnit.MILLISECONDS)
            .getRelayInfo(WireCodec.relayInfoRequest());
        assertThat(info.getProtocolVersion()).isEqualTo(1);
        assertThat(recorder.encodings).containsExactly("identity");
      } finally {
        ch.shutdownNow();
      }
    }
  }

  /**
   * The decompressed size is bounded by the message limit. The status is grpc-java's default for a request that
   * fails to parse on the server (UNKNOWN "Application error processing RPC"): wan-grpc.md §10, decision
   * "undecodable requests follow grpc-java defaults".
   */
  @Test
  void decisionAZstdRequestExpandingPastTheMessageLimitIsRefusedWithGrpcJavasDefaultStatus() throws Exception {
    try (ServerFixture f = new ServerFixture(ServerFixture.config())) {
      // 9 MiB of zeros in an unknown field: a few hundred bytes compressed, past the 8 MiB limit decompressed.
      RelayInfoRequest bomb = WireCodec.relayInfoRequest().toBuilder().setUnknownFields(UnknownFieldSet.newBuilder()
          .addField(100, UnknownFieldSet.Field.newBuilder()
              .addLengthDelimited(ByteString.copyFrom(new byte[9 << 20])).build()).build()).build();
      ManagedChannel ch = channel(f, true);
      try {
        assertThatThrownBy(() -> KvEventRelayGrpc.newBlockingStub(ch).withCompression(ZstdCodec.ENCODING)
            .withDeadlineAfter(ServerFixture.DEADLINE_MS, TimeUnit.MILLISECONDS).getRelayInfo(bomb))
            .isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).as("%s", e.getStatus()).isEqualTo(Status.Code.UNKNOWN));
        // the server is unharmed
        assertThat(f.blocking.getRelayInfo(WireCodec.relayInfoRequest()).getProtocolVersion()).isEqualTo(1);
      } finally {
        ch.shutdownNow();
      }
    }
  }

  /**
   * Decision (pinned): {@code RelayGrpcClient} advertises zstd only when built with {@code acceptZstd(true)}, as
   * upstream's consumer uses zstd only when configured; either way the client reads zstd responses.
   */
  @Test
  void decisionRelayGrpcClientAdvertisesZstdOnlyWhenAskedAndReadsZstdResponses() throws Exception {
    for (boolean accept : new boolean[] {false, true}) {
      List<String> seen = new CopyOnWriteArrayList<>();
      dev.kvrelay.grpc.client.ScriptedRelay relay = new dev.kvrelay.grpc.client.ScriptedRelay();
      dev.kvrelay.api.RelayIdentity identity = new dev.kvrelay.api.RelayIdentity(7, 9);
      relay.info = (q, out) -> {
        out.onNext(WireCodec.relayInfo(identity));
        out.onCompleted();
      };
      io.grpc.ServerInterceptor recordAndCompress = new io.grpc.ServerInterceptor() {
        @Override
        public <Q, R> io.grpc.ServerCall.Listener<Q> interceptCall(io.grpc.ServerCall<Q, R> call, Metadata headers,
            io.grpc.ServerCallHandler<Q, R> next) {
          String accepted = headers.get(Metadata.Key.of("grpc-accept-encoding", Metadata.ASCII_STRING_MARSHALLER));
          seen.add(String.valueOf(accepted));
          call.setCompression(ZstdCodec.ENCODING); // sent even unasked: the client must still read it
          return next.startCall(call, headers);
        }
      };
      io.grpc.Server server = io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder
          .forAddress(new java.net.InetSocketAddress("127.0.0.1", 0))
          .addService(io.grpc.ServerInterceptors.intercept(relay, recordAndCompress))
          .compressorRegistry(ZstdCodec.compressors()).decompressorRegistry(ZstdCodec.decompressors())
          .build().start();
      try (dev.kvrelay.grpc.client.RelayGrpcClient client = dev.kvrelay.grpc.client.RelayGrpcClient.builder()
          .target("127.0.0.1:" + server.getPort()).acceptZstd(accept).build()) {
        assertThat(client.getRelayInfo()).isEqualTo(identity);
      } finally {
        server.shutdownNow();
      }
      assertThat(seen).hasSize(1);
      assertThat(RelayGrpcServer.ZstdResponses.accepts(seen.get(0))).as("accept-encoding %s", seen.get(0))
          .isEqualTo(accept);
    }
  }

  @Test
  void acceptEncodingListsAreParsedByToken() {
    assertThat(RelayGrpcServer.ZstdResponses.accepts("gzip, zstd")).isTrue();
    assertThat(RelayGrpcServer.ZstdResponses.accepts("ZSTD")).isTrue();
    assertThat(RelayGrpcServer.ZstdResponses.accepts("gzip,identity")).isFalse();
    assertThat(RelayGrpcServer.ZstdResponses.accepts("zstdx")).isFalse();
    assertThat(RelayGrpcServer.ZstdResponses.accepts((@Nullable String) null)).isFalse();
  }
}
