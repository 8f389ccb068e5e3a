package dev.kvrelay.launcher.inspect;

import dev.kvrelay.api.RelayException;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import dev.kvrelay.grpc.wire.ZstdCodec;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.TlsChannelCredentials;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Not thread-safe: picocli fills it on the parsing thread, the command then reads it on the same thread. The
 * options every {@code kvrelay inspect} verb shares (a picocli mixin): the target, TLS material, the inbound message
 * limit, the {@code :authority} override and the output format; it builds the one channel a verb talks through.
 */
final class ConnectionOptions {
  /** Immutable: how a verb prints. */
  enum Output {
    json,
    table
  }

  @Option(names = "--target", required = true, paramLabel = "HOST:PORT", description = "The relay's gRPC listener.")
  String target = "";

  @Option(names = "--output", defaultValue = "json", paramLabel = "json|table",
      description = "proto3 JSON as grpcurl prints it (default) or a table.")
  Output output = Output.json;

  private int maxMessageBytes = InspectCommand.DEFAULT_MAX_MESSAGE_BYTES;

  @Option(names = "--authority", paramLabel = "AUTHORITY",
      description = "The :authority header (and, with TLS, the name the server certificate must carry) instead of "
          + "HOST:PORT, as grpcurl's -authority.")
  @Nullable String authority;

  @Option(names = "--cacert", paramLabel = "FILE",
      description = "TLS: trust only these PEM CA certificates (the mTLS sidecar's CA); switches to TLS.")
  @Nullable Path caCertificates;

  @Option(names = "--cert", paramLabel = "FILE",
      description = "TLS: present this PEM client certificate chain (with --key); switches to TLS.")
  @Nullable Path clientCertificate;

  @Option(names = "--key", paramLabel = "FILE", description = "TLS: the client certificate's PKCS#8 PEM key.")
  @Nullable Path clientKey;

  @Spec(Spec.Target.MIXEE)
  @Nullable CommandSpec mixee;

  /**
   * {@code --max-msg-sz}: at least {@link RelayGrpcClient#MIN_MAX_INBOUND_MESSAGE_BYTES} (one full snapshot chunk
   * and its framing), else a usage error.
   */
  @Option(names = "--max-msg-sz", defaultValue = "" + InspectCommand.DEFAULT_MAX_MESSAGE_BYTES, paramLabel = "BYTES",
      description = "Largest inbound message (default 8 MiB = 8388608; at least 4259904, one full snapshot chunk "
          + "and its framing).")
  void maxMessageBytes(int bytes) {
    if (bytes < RelayGrpcClient.MIN_MAX_INBOUND_MESSAGE_BYTES) {
      throw usage("--max-msg-sz " + bytes + " is below the minimum of " + RelayGrpcClient.MIN_MAX_INBOUND_MESSAGE_BYTES
          + " bytes (one full snapshot chunk and its framing)");
    }
    this.maxMessageBytes = bytes;
  }

  /** The inbound message limit in bytes. */
  int maxMessageBytes() {
    return maxMessageBytes;
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(Objects.requireNonNull(mixee).commandLine(), message);
  }

  /** The channel credentials: plaintext h2c unless a TLS option was given, else TLS with the given material. */
  private ChannelCredentials credentials() {
    if ((clientCertificate == null) != (clientKey == null)) {
      throw usage("--cert and --key go together");
    }
    if (caCertificates == null && clientCertificate == null) {
      return InsecureChannelCredentials.create();
    }
    TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder();
    try {
      if (caCertificates != null) {
        b.trustManager(caCertificates.toFile());
      }
      if (clientCertificate != null) {
        b.keyManager(clientCertificate.toFile(), Objects.requireNonNull(clientKey).toFile());
      }
    } catch (IOException | IllegalArgumentException e) {
      throw usage("cannot read TLS material: " + e.getMessage());
    }
    return b.build();
  }

  /**
   * A new channel to the target with these options (the caller shuts it down): the credentials, the inbound limit,
   * the {@code :authority} override, and the compressor registries {@link RelayGrpcClient} uses for its own channels.
   *
   * @throws CommandLine.ParameterException (usage) for unusable TLS material or an invalid authority
   */
  ManagedChannel channel() {
    ChannelCredentials credentials = credentials();
    ManagedChannelBuilder<?> b;
    try {
      b = Grpc.newChannelBuilder(target, credentials);
    } catch (RuntimeException e) {
      // grpc-netty builds the SslContext here: unusable certificates or keys surface now
      throw usage("TLS material for " + target + " is not usable: " + e.getMessage());
    }
    if (authority != null) {
      try {
        b.overrideAuthority(authority);
      } catch (IllegalArgumentException e) {
        throw usage("--authority " + authority + ": " + e.getMessage());
      }
    }
    return b.maxInboundMessageSize(maxMessageBytes).compressorRegistry(ZstdCodec.compressors())
        .decompressorRegistry(ZstdCodec.decompressors(false)).build();
  }

  PrintWriter out() {
    return Objects.requireNonNull(mixee).commandLine().getOut();
  }

  PrintWriter err() {
    return Objects.requireNonNull(mixee).commandLine().getErr();
  }

  /** Prints {@code kvrelay inspect: MESSAGE} to stderr and returns {@code code}. */
  int fail(int code, String message) {
    err().println("kvrelay inspect: " + message);
    err().flush();
    return code;
  }

  /** A failed reflected call: {@link InspectCommand#CALL_FAILED}. */
  int fail(InspectException e) {
    return fail(InspectCommand.CALL_FAILED, String.valueOf(e.getMessage()));
  }

  /** A failed {@link RelayGrpcClient} call: {@link InspectCommand#CALL_FAILED}. */
  int fail(String call, RelayException e) {
    return fail(InspectCommand.CALL_FAILED, InspectCommand.describe(call, e));
  }
}
