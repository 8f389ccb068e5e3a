package dev.kvrelay.grpc.client;

import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayErrorReason;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.RelayConfigKey;
import dev.kvrelay.engine.wan.RelaySource;
import dev.kvrelay.engine.wan.TopologySnapshot;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.KvPoolLoadUpdate;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.ReadinessUpdate;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.ServingLoadUpdate;
import dev.kvrelay.engine.wire.WireSource;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.proto.KvEventRelayGrpc;
import dev.kvrelay.grpc.proto.RelayInfo;
import dev.kvrelay.grpc.wire.RelayStatus;
import dev.kvrelay.grpc.wire.WireCodec;
import dev.kvrelay.grpc.wire.ZstdCodec;
import io.grpc.CallOptions;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: any method may be called from any thread. A remote relay ({@code dynamo.kvrelay.v1.KvEventRelay})
 * as a {@link RelaySource}: each method opens the matching server-streaming RPC over one HTTP/2 channel — plaintext
 * (h2c) by default, TLS with an optional client certificate when the builder is given TLS material (the mTLS sidecar
 * of {@code docs/mtls-sidecar.md}; the relay itself has no TLS, wan-grpc.md §6) — and returns it as a pull-based
 * {@link RelayStream} with manual inbound flow control: at most {@link Builder#inboundQueueBound bound} messages
 * are ever requested and not yet consumed, so a consumer that stops polling stops the server at its
 * {@code isReady}.
 *
 * <p>Values are decoded with {@link WireCodec}: catalog updates and pool frames keep their envelope for the engine
 * views to check; readiness and load values carry none, so their envelope is checked here and a failure ends the
 * stream with {@link RelayErrorReason#CONTRACT_MISMATCH} (see {@link WireDecoders} for every choice, including
 * readiness entries that fail validation). A call that ends with an error ends its stream with the
 * {@link RelayException} {@link RelayStatus#fromStatus} reads from the status and the {@code kv-relay-error-reason}
 * trailer; a clean end finishes the stream without error. Inbound messages are limited to
 * {@link #DEFAULT_MAX_INBOUND_MESSAGE_BYTES} (8 MiB) by default, enough for a full 4 MiB snapshot chunk
 * (wan-grpc.md §7.1); a larger message ends its stream with the typed error of its status
 * ({@code RESOURCE_EXHAUSTED} ⇒ {@link RelayErrorReason#RESOURCE_LIMIT} by the status-code fallback).
 *
 * <p>Reconnection and backoff are the consumer's job ({@code RelayConsumer}); this client only opens calls.
 */
public final class RelayGrpcClient implements RelaySource, AutoCloseable {
  static {
    WireSources.register(RelayGrpcClient.class, c -> c.wire);
  }

  /** The default inbound message limit: 8 MiB, the server's default {@code max_message_bytes}. */
  public static final int DEFAULT_MAX_INBOUND_MESSAGE_BYTES = (int) RelayConfigKey.MAX_MESSAGE_BYTES.defaultValue();
  /** The smallest inbound limit accepted: one full snapshot chunk plus its framing (4 259 904 bytes). */
  public static final int MIN_MAX_INBOUND_MESSAGE_BYTES = (int) RelayConfigKey.MAX_MESSAGE_BYTES.min();
  /** Default bound of unconsumed messages per stream (queued plus requested). */
  public static final int DEFAULT_INBOUND_QUEUE_BOUND = 2;
  /** Largest accepted queue bound. */
  public static final int MAX_INBOUND_QUEUE_BOUND = 1024;
  /** Default deadline of {@link #getRelayInfo()}. */
  public static final Duration DEFAULT_INFO_DEADLINE = Duration.ofSeconds(5);

  private final ManagedChannel channel;
  private final boolean ownsChannel;
  private final CallOptions options;
  private final int queueBound;
  private final Duration infoDeadline;
  private final ClientCounters counters = new ClientCounters();
  /** This client's streams as the consumer reads them ({@link WireSources#of}). */
  private final WireSource wire = new ClientWire();
  private volatile boolean closed;

  private RelayGrpcClient(Builder b) {
    int maxInbound = b.maxInbound == null ? DEFAULT_MAX_INBOUND_MESSAGE_BYTES : b.maxInbound;
    if (b.channel != null) {
      this.channel = b.channel;
      this.ownsChannel = false;
    } else {
      this.channel = channelBuilder(b)
          .maxInboundMessageSize(maxInbound)
          .compressorRegistry(ZstdCodec.compressors())
          .decompressorRegistry(ZstdCodec.decompressors(b.acceptZstd))
          .build();
      this.ownsChannel = true;
    }
    this.options = CallOptions.DEFAULT.withMaxInboundMessageSize(maxInbound);
    this.queueBound = b.queueBound == null ? DEFAULT_INBOUND_QUEUE_BOUND : b.queueBound;
    this.infoDeadline = b.infoDeadline == null ? DEFAULT_INFO_DEADLINE : b.infoDeadline;
  }

  /** A plaintext builder for the target, or a TLS one when the builder holds TLS material. */
  private static ManagedChannelBuilder<?> channelBuilder(Builder b) {
    String target = Objects.requireNonNull(b.target);
    ChannelCredentials tls = b.tlsCredentials();
    if (tls == null) {
      return ManagedChannelBuilder.forTarget(target).usePlaintext();
    }
    try {
      return Grpc.newChannelBuilder(target, tls);
    } catch (RuntimeException e) {
      // grpc-netty builds the SslContext here: an unreadable certificate or key surfaces now, not at the first call
      throw new IllegalArgumentException("TLS material for " + target + " is not usable: " + e.getMessage(), e);
    }
  }

  /** A new set-once builder: exactly one of {@link Builder#target} and {@link Builder#channel} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * GetRelayInfo with the builder's deadline: the relay's identity once the reply's envelope passed (marker,
   * version, relay present).
   *
   * @throws RelayException the call's error (a missed deadline reads as
   *     {@link RelayErrorReason#PUBLICATION_UNAVAILABLE}), or {@link RelayErrorReason#CONTRACT_MISMATCH} for a bad
   *     envelope
   */
  public RelayIdentity getRelayInfo() throws RelayException {
    ensureOpen();
    RelayInfo info;
    try {
      info = ClientCalls.blockingUnaryCall(channel, KvEventRelayGrpc.getGetRelayInfoMethod(),
          options.withDeadlineAfter(infoDeadline.toNanos(), TimeUnit.NANOSECONDS), WireCodec.relayInfoRequest());
    } catch (StatusRuntimeException e) {
      throw RelayStatus.fromThrowable(e);
    }
    WireDecoders.checkEnvelope("relay info", WireCodec.fromProto(info));
    return Objects.requireNonNull(WireCodec.fromProto(info).relay());
  }

  RelayStream<CatalogUpdate> watchCatalog(String subscriberId) throws RelayException {
    return open(KvEventRelayGrpc.getWatchKvPoolCatalogMethod(), WireCodec.watchCatalogRequest(subscriberId),
        WireDecoders.catalog());
  }

  /**
   * SubscribeKvPool with {@code expected} as {@code expected_producer}, unmodified. The server sends nothing until
   * its admission chain succeeded, so the future completes when the first frame (or a clean end) arrives, and
   * exceptionally with the {@link RelayException} of a trailers-only error. Cancelling the future cancels the
   * call. {@code pool} must be {@code expected}'s pool (the request carries only the producer).
   */
  CompletableFuture<RelayStream<PoolFrame>> subscribePool(
      KvPoolId pool, ProducerIdentity expected, String subscriberId) {
    if (closed) {
      return CompletableFuture.failedFuture(closedError());
    }
    if (!expected.poolId().equals(pool)) {
      return CompletableFuture.failedFuture(new RelayException(RelayErrorReason.INVALID_REQUEST,
          "expected producer belongs to " + expected.poolId() + ", not " + pool));
    }
    GrpcRelayStream<dev.kvrelay.grpc.proto.FilterUpdate, PoolFrame> stream = GrpcRelayStream.open(channel,
        KvEventRelayGrpc.getSubscribeKvPoolMethod(), options, WireCodec.subscribePoolRequest(subscriberId, expected),
        WireDecoders.pool(), queueBound, counters);
    CompletableFuture<RelayStream<PoolFrame>> result = new CompletableFuture<>();
    // The dependent stages are not needed: their callbacks only complete result / close the stream.
    CompletionStage<?> unused = stream.firstArrival().whenComplete((s, e) -> {
      if (e != null) {
        result.completeExceptionally(e);
      } else {
        result.complete(s);
      }
    });
    unused = result.whenComplete((s, e) -> {
      if (result.isCancelled()) {
        stream.close();
      }
    });
    return result;
  }

  RelayStream<TopologySnapshot> watchReadiness(String subscriberId) throws RelayException {
    return open(KvEventRelayGrpc.getSubscribeServingReadinessMethod(), WireCodec.readinessRequest(subscriberId),
        WireDecoders.readiness());
  }

  /**
   * SubscribeServingReadiness as {@code RelayConsumer} reads it: the envelope is checked
   * ({@link RelayErrorReason#CONTRACT_MISMATCH} on failure), then each entry is validated on its own; an entry with
   * an unknown state or role, or otherwise invalid, is quarantined under its key (counted in
   * {@link ClientStats#quarantinedReadinessEntries()}) while the rest of the message is used (wan-grpc.md §7.5).
   */
  RelayStream<ReadinessUpdate> watchReadinessUpdates(String subscriberId) throws RelayException {
    return open(KvEventRelayGrpc.getSubscribeServingReadinessMethod(), WireCodec.readinessRequest(subscriberId),
        WireDecoders.readinessUpdates(counters));
  }

  RelayStream<KvPoolLoadUpdate> watchPoolLoad(String subscriberId) throws RelayException {
    return open(KvEventRelayGrpc.getSubscribeKvPoolLoadMethod(), WireCodec.poolLoadRequest(subscriberId),
        WireDecoders.poolLoad(counters));
  }

  /** SubscribeServingLoad: validated windows, excluded entries counted. */
  RelayStream<ServingLoadUpdate> watchServingLoad(String subscriberId) throws RelayException {
    return open(KvEventRelayGrpc.getSubscribeServingLoadMethod(), WireCodec.servingLoadRequest(subscriberId),
        WireDecoders.servingLoad(counters));
  }

  /** Starts a server-streaming call of this client (refused once closed). */
  private <Q, P, T> RelayStream<T> open(MethodDescriptor<Q, P> method, Q request, MessageDecoder<P, T> decoder)
      throws RelayException {
    ensureOpen();
    return GrpcRelayStream.open(channel, method, options, request, decoder, queueBound, counters);
  }

  /** What was dropped, refused or counted so far. */
  public ClientStats stats() {
    return counters.snapshot();
  }

  /**
   * Refuses new calls; shuts the channel down at once (cancelling its calls) if this client built it. A channel
   * the caller supplied stays open: its owner shuts it down. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (ownsChannel) {
      channel.shutdownNow();
    }
  }

  private void ensureOpen() throws RelayException {
    if (closed) {
      throw closedError();
    }
  }

  private static RelayException closedError() {
    return new RelayException(RelayErrorReason.PUBLICATION_UNAVAILABLE, "client closed");
  }

  @Override
  public String toString() {
    return "RelayGrpcClient[" + channel.authority() + "]";
  }

  /** Not thread-safe: confined to the building thread. Every setter may be called once. */
  public static final class Builder {
    private @Nullable String target;
    private @Nullable ManagedChannel channel;
    private @Nullable Integer maxInbound;
    private @Nullable Integer queueBound;
    private @Nullable Duration infoDeadline;
    private boolean acceptZstd;
    private boolean acceptZstdSet;
    private @Nullable Path trustCertificates;
    private @Nullable Path clientCertificateChain;
    private @Nullable Path clientPrivateKey;

    private Builder() {}

    /**
     * Switches the {@link #target} channel to TLS and trusts only the PEM certificates in {@code caBundle} (the
     * sidecar's CA) instead of the JDK's default trust store. The server's certificate must also name the target's
     * host (a DNS or IP subject alternative name). Not combinable with {@link #channel}.
     *
     * @throws IllegalArgumentException if the file is not a readable regular file
     */
    public Builder trustCertificates(Path caBundle) {
      once(trustCertificates == null, "trustCertificates");
      this.trustCertificates = readable(caBundle, "trust bundle");
      return this;
    }

    /**
     * Switches the {@link #target} channel to TLS and presents this client certificate (PEM chain, leaf first) with
     * its unencrypted PKCS#8 PEM private key ({@code -----BEGIN PRIVATE KEY-----}, as {@code openssl genpkey}
     * writes it) when the server asks for one. Without {@link #trustCertificates} the server is checked against the
     * JDK's default trust store. Not combinable with {@link #channel}.
     *
     * @throws IllegalArgumentException if a file is not a readable regular file
     */
    public Builder clientCertificate(Path certificateChain, Path privateKey) {
      once(clientCertificateChain == null, "clientCertificate");
      this.clientCertificateChain = readable(certificateChain, "client certificate chain");
      this.clientPrivateKey = readable(privateKey, "client private key");
      return this;
    }

    private static Path readable(Path file, String what) {
      if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
        throw new IllegalArgumentException(what + " " + file + " is not a readable file");
      }
      return file;
    }

    private boolean tls() {
      return trustCertificates != null || clientCertificateChain != null;
    }

    /** The TLS credentials of the target channel, or null for plaintext. */
    private @Nullable ChannelCredentials tlsCredentials() {
      if (!tls()) {
        return null;
      }
      TlsChannelCredentials.Builder creds = TlsChannelCredentials.newBuilder();
      try {
        if (trustCertificates != null) {
          creds.trustManager(trustCertificates.toFile());
        }
        if (clientCertificateChain != null) {
          creds.keyManager(clientCertificateChain.toFile(), Objects.requireNonNull(clientPrivateKey).toFile());
        }
      } catch (IOException e) {
        throw new IllegalArgumentException("cannot read TLS material: " + e.getMessage(), e);
      }
      return creds.build();
    }

    /**
     * Whether to advertise zstd in {@code grpc-accept-encoding}, so that the relay compresses its responses
     * (wan-grpc.md §6.1; applies to a {@link #target} channel, a caller's {@link #channel} keeps its own registries).
     * Default false, as upstream's consumer: on loopback compressing the snapshot chunks costs more than the bytes it
     * saves (snapshot streaming of B = 2^19 measured 571 ± 120 MB/s without, 222 ± 21 MB/s with zstd); on a slow WAN
     * link the trade may reverse.
     */
    public Builder acceptZstd(boolean value) {
      once(!acceptZstdSet, "acceptZstd");
      acceptZstdSet = true;
      this.acceptZstd = value;
      return this;
    }

    /**
     * The relay's {@code host:port} (plaintext h2c, or TLS with {@link #trustCertificates} /
     * {@link #clientCertificate}); exclusive with {@link #channel}.
     */
    public Builder target(String target) {
      once(this.target == null && this.channel == null, "target/channel");
      if (target.isBlank()) {
        throw new IllegalArgumentException("target is blank");
      }
      this.target = target;
      return this;
    }

    /**
     * A channel the caller owns (and shuts down); exclusive with {@link #target}. The inbound limit is applied per
     * call.
     */
    public Builder channel(ManagedChannel channel) {
      once(this.target == null && this.channel == null, "target/channel");
      this.channel = Objects.requireNonNull(channel, "channel");
      return this;
    }

    /** Inbound message limit in bytes, at least {@link #MIN_MAX_INBOUND_MESSAGE_BYTES} (default 8 MiB). */
    public Builder maxInboundMessageSize(int bytes) {
      once(maxInbound == null, "maxInboundMessageSize");
      if (bytes < MIN_MAX_INBOUND_MESSAGE_BYTES) {
        throw new IllegalArgumentException(
            "maxInboundMessageSize " + bytes + " < minimum " + MIN_MAX_INBOUND_MESSAGE_BYTES);
      }
      this.maxInbound = bytes;
      return this;
    }

    /** Messages a stream may hold unconsumed (queued plus requested), 1..{@link #MAX_INBOUND_QUEUE_BOUND}. */
    public Builder inboundQueueBound(int messages) {
      once(queueBound == null, "inboundQueueBound");
      if (messages < 1 || messages > MAX_INBOUND_QUEUE_BOUND) {
        throw new IllegalArgumentException("inboundQueueBound " + messages + " not in 1.." + MAX_INBOUND_QUEUE_BOUND);
      }
      this.queueBound = messages;
      return this;
    }

    /** Deadline of {@link RelayGrpcClient#getRelayInfo()} (positive; default 5 s). */
    public Builder infoDeadline(Duration deadline) {
      once(infoDeadline == null, "infoDeadline");
      if (deadline.isNegative() || deadline.isZero()) {
        throw new IllegalArgumentException("infoDeadline must be positive: " + deadline);
      }
      this.infoDeadline = deadline;
      return this;
    }

    /**
     * The client.
     *
     * @throws IllegalStateException if neither a target nor a channel was given, or TLS material was given with a
     *     caller's channel (that channel carries its own credentials)
     * @throws IllegalArgumentException if the TLS material cannot be loaded (not PEM, key not PKCS#8, key and
     *     certificate do not match)
     */
    public RelayGrpcClient build() {
      if (target == null && channel == null) {
        throw new IllegalStateException("a target or a channel is required");
      }
      if (channel != null && tls()) {
        throw new IllegalStateException("TLS options apply to a target channel, not to a caller's channel");
      }
      return new RelayGrpcClient(this);
    }

    private static void once(boolean unset, String what) {
      if (!unset) {
        throw new IllegalStateException(what + " already set");
      }
    }
  }

  /** Thread-safe as the client is: the client's streams behind its {@link RelaySource} face. */
  private final class ClientWire implements WireSource {
    @Override
    public RelayStream<CatalogUpdate> watchCatalog(String subscriberId) throws RelayException {
      return RelayGrpcClient.this.watchCatalog(subscriberId);
    }

    @Override
    public CompletableFuture<RelayStream<PoolFrame>> subscribePool(
        KvPoolId pool, ProducerIdentity expected, String subscriberId) {
      return RelayGrpcClient.this.subscribePool(pool, expected, subscriberId);
    }

    @Override
    public RelayStream<TopologySnapshot> watchReadiness(String subscriberId) throws RelayException {
      return RelayGrpcClient.this.watchReadiness(subscriberId);
    }

    @Override
    public RelayStream<ReadinessUpdate> watchReadinessUpdates(String subscriberId) throws RelayException {
      return RelayGrpcClient.this.watchReadinessUpdates(subscriberId);
    }

    @Override
    public RelayStream<KvPoolLoadUpdate> watchPoolLoad(String subscriberId) throws RelayException {
      return RelayGrpcClient.this.watchPoolLoad(subscriberId);
    }

    @Override
    public RelayStream<ServingLoadUpdate> watchServingLoad(String subscriberId) throws RelayException {
      return RelayGrpcClient.this.watchServingLoad(subscriberId);
    }
  }
}
