package dev.kvrelay.discovery.etcd;

import dev.kvrelay.spi.discovery.DiscoveryBackend;
import dev.kvrelay.spi.discovery.DiscoveryCodec;
import dev.kvrelay.spi.discovery.DiscoveryException;
import dev.kvrelay.spi.discovery.DiscoveryKey;
import dev.kvrelay.spi.discovery.DiscoveryListener;
import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.DiscoveryRegistrar;
import dev.kvrelay.spi.discovery.DiscoveryScope;
import dev.kvrelay.spi.discovery.DiscoveryWatch;
import dev.kvrelay.spi.discovery.EndpointKey;
import dev.kvrelay.spi.discovery.ModelKey;
import dev.kvrelay.spi.discovery.OwnedKeysRegistrar;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe: the etcd discovery backend ({@code DYN_DISCOVERY_BACKEND=etcd}), one jetcd client plus the
 * process's primary lease, from which any number of watches ({@link EtcdWatch}) are started.
 *
 * <p>Like a Dynamo runtime ({@code runtime-inputs.md} §1.1, §2.2; {@code plugins-wire.md} §6), opening
 * grants one primary lease with TTL {@code ETCD_LEASE_TTL} and keeps it alive; its id is the process's
 * instance id ({@link #instanceId()}, the relay's {@code drt_instance_id}, {@code producer.md} §1.1). The
 * relay's own records are written with {@link #register} under that lease, so they vanish within about one
 * TTL when the process dies, and at once when it {@linkplain #close() closes} (the lease is revoked). If the
 * lease is lost anyway (expired during a long partition, or revoked by an operator), the loss is logged and
 * counted ({@link EtcdDiscoveryStats#leaseLost()}) and further registration fails: upstream's runtime
 * shuts down in that case, and the launcher is expected to do the same.
 */
public final class EtcdDiscovery implements DiscoveryBackend {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdDiscovery.class);
  private static final AtomicLong WATCH_IDS = new AtomicLong();
  /** Per request (GET page, lease grant, put, txn). */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
  /** Per lease-grant attempt while connecting. */
  private static final Duration CONNECT_ATTEMPT_TIMEOUT = Duration.ofSeconds(3);
  private static final int MAX_INBOUND_MESSAGE_BYTES = 64 << 20;

  private final Client client;
  private final EtcdSettings settings;
  private final long leaseId;
  private final EtcdCounters counters = new EtcdCounters();
  private final List<EtcdWatch> watches = new CopyOnWriteArrayList<>();
  private final Set<String> registered = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean leaseLost = new AtomicBoolean();
  private final Object lifecycle = new Object();
  private final CloseableClient keepAlive;
  private boolean closed;

  private EtcdDiscovery(Client client, EtcdSettings settings, long leaseId) {
    this.client = client;
    this.settings = settings;
    this.leaseId = leaseId;
    this.keepAlive = client.getLeaseClient().keepAlive(leaseId, new KeepAliveObserver());
  }

  /**
   * Connects and grants the primary lease, retrying until {@code ETCD_STARTUP_CONNECT_TIMEOUT_SECONDS}.
   *
   * @throws DiscoveryException {@code INVALID_CONFIGURATION} if etcd refuses the credentials, {@code
   *     UNAVAILABLE} if no endpoint answered in time
   */
  public static EtcdDiscovery open(EtcdSettings settings) throws DiscoveryException {
    Client client = newClient(settings);
    long deadline = System.nanoTime() + settings.startupConnectTimeout().toNanos();
    long backoffMs = 100;
    Throwable last = null;
    while (true) {
      long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (remainingMs <= 0) {
        client.close();
        String why = last == null || last.getMessage() == null ? "" : " (last error: " + last.getMessage() + ")";
        throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "no etcd endpoint of "
            + settings.endpoints() + " answered within " + settings.startupConnectTimeout().toSeconds() + " s" + why,
            last);
      }
      long attemptMs = Math.max(1, Math.min(remainingMs, CONNECT_ATTEMPT_TIMEOUT.toMillis()));
      Future<io.etcd.jetcd.lease.LeaseGrantResponse> grant =
          client.getLeaseClient().grant(settings.leaseTtl().toSeconds(), attemptMs, TimeUnit.MILLISECONDS);
      try {
        long id = grant.get(attemptMs + 1_000, TimeUnit.MILLISECONDS).getID();
        LOG.info("etcd discovery connected to {}; primary lease {} (TTL {} s)", settings.endpoints(),
            Long.toHexString(id), settings.leaseTtl().toSeconds());
        try {
          probeRead(client);
        } catch (DiscoveryException probe) {
          revokeQuietly(client, id);
          client.close();
          throw probe;
        }
        return new EtcdDiscovery(client, settings, id);
      } catch (ExecutionException e) {
        Throwable cause = causeOf(e);
        last = cause;
        if (isAuthFailure(cause)) {
          client.close();
          throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION,
              "etcd refused the credentials of " + EtcdSettings.USERNAME + ": " + cause.getMessage(), cause);
        }
      } catch (TimeoutException e) {
        grant.cancel(true);
        last = e;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        client.close();
        throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "interrupted while connecting to etcd", e);
      }
      LOG.debug("etcd not reachable yet: {}", String.valueOf(last));
      try {
        Thread.sleep(Math.min(backoffMs, Math.max(1, remainingMs)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        client.close();
        throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "interrupted while connecting to etcd", e);
      }
      backoffMs = Math.min(2_000, backoffMs * 2);
    }
  }

  /** The failure a future reported: the exception's cause, or the exception itself if it carries none. */
  private static Throwable causeOf(ExecutionException e) {
    Throwable cause = e.getCause();
    return cause != null ? cause : e;
  }

  private static void revokeQuietly(Client client, long lease) {
    try {
      client.getLeaseClient().revoke(lease).get(2, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.debug("revoking lease {} failed: {}", Long.toHexString(lease), e.getMessage());
    }
  }

  private static Client newClient(EtcdSettings settings) throws DiscoveryException {
    ClientBuilder builder = Client.builder()
        .endpoints(settings.endpoints().toArray(new java.net.URI[0]))
        .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES)
        .connectTimeout(Duration.ofSeconds(5));
    if (settings.username() != null && settings.password() != null) {
      builder.user(ByteSequence.from(settings.username(), StandardCharsets.UTF_8))
          .password(ByteSequence.from(settings.password(), StandardCharsets.UTF_8));
    }
    EtcdSettings.Tls tls = settings.tls();
    if (tls != null) {
      try {
        builder.sslContext(b -> b.trustManager(tls.ca().toFile()).keyManager(tls.clientCert().toFile(),
            tls.clientKey().toFile()));
      } catch (Exception e) {
        throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION,
            "the TLS files of " + EtcdSettings.CA + "/" + EtcdSettings.CLIENT_CERT + "/" + EtcdSettings.CLIENT_KEY
                + " are not usable: " + e.getMessage(), e);
      }
    }
    return builder.build();
  }

  /** True if etcd refused the credentials or the user's permissions: retrying will not help. */
  static boolean isAuthFailure(@Nullable Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof EtcdException) {
        ErrorCode code = ((EtcdException) c).getErrorCode();
        if (code == ErrorCode.UNAUTHENTICATED || code == ErrorCode.PERMISSION_DENIED) {
          return true;
        }
      }
      Status.Code code = Status.fromThrowable(c).getCode();
      if (code == Status.Code.UNAUTHENTICATED || code == Status.Code.PERMISSION_DENIED) {
        return true;
      }
      String m = c.getMessage() == null ? "" : c.getMessage();
      if (m.contains("authentication failed") || m.contains("invalid auth token") || m.contains("user name is empty")
          || m.contains("permission denied")) {
        return true;
      }
    }
    return false;
  }

  /**
   * Reads {@code v1/} once (a count) so that missing or insufficient credentials fail at open rather than at
   * the first watch (etcd 3.4 grants leases without checking permissions).
   */
  private static void probeRead(Client client) throws DiscoveryException {
    try {
      client.getKVClient().get(EtcdWatch.bytes("v1/"), GetOption.builder().isPrefix(true).withCountOnly(true).build())
          .get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = causeOf(e);
      if (isAuthFailure(cause)) {
        throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION, "etcd refused to let "
            + EtcdSettings.USERNAME + " read v1/: " + cause.getMessage(), cause);
      }
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "etcd read of v1/ failed: "
          + cause.getMessage(), cause);
    } catch (TimeoutException e) {
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "etcd read of v1/ timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "interrupted while reading etcd", e);
    }
  }

  /** The settings this backend was opened with. */
  public EtcdSettings settings() {
    return settings;
  }

  /** The primary lease id: this process's instance id (unsigned 64-bit; lowercase hex in keys). */
  public long instanceId() {
    return leaseId;
  }

  /** True until the primary lease has been lost (expired or revoked) or the backend closed. */
  public boolean isLeaseAlive() {
    return !leaseLost.get();
  }

  @Override
  public DiscoveryWatch watch(DiscoveryScope scope, DiscoveryListener listener) throws DiscoveryException {
    EtcdWatch watch;
    synchronized (lifecycle) {
      if (closed) {
        throw new DiscoveryException(DiscoveryException.Kind.CLOSED, "etcd discovery is closed");
      }
      watch = new EtcdWatch(client.getKVClient(), client.getWatchClient(), scope, listener, counters,
          REQUEST_TIMEOUT, "kvrelay-etcd-watch-" + WATCH_IDS.incrementAndGet(), watches::remove);
      watches.add(watch);
    }
    try {
      watch.start();
    } catch (DiscoveryException e) {
      watches.remove(watch);
      throw e;
    }
    return watch;
  }

  /**
   * Writes one of the relay's own records under the primary lease: created with a transaction "if version
   * == 0 then put" ({@code runtime-inputs.md} §2.2), or, if the key exists, overwritten with a put under the
   * lease (an update). Endpoint and model-card keys must carry {@link #instanceId()}.
   *
   * @return true if the key was created, false if it existed and was updated
   * @throws DiscoveryException {@code INVALID_CONFIGURATION} for a key of another instance, {@code
   *     UNAVAILABLE} if the lease is lost or etcd does not answer, {@code CLOSED} after {@link #close()}
   */
  public boolean register(DiscoveryRecord record) throws DiscoveryException {
    DiscoveryKey key = record.key();
    long owner = key instanceof EndpointKey endpointKey ? endpointKey.instanceId()
        : key instanceof ModelKey modelKey ? modelKey.instanceId() : leaseId;
    if (owner != leaseId) {
      throw new DiscoveryException(DiscoveryException.Kind.INVALID_CONFIGURATION, "cannot register " + key.storageKey()
          + ": its instance id " + Long.toHexString(owner) + " is not this process's lease " + Long.toHexString(leaseId));
    }
    checkUsable();
    ByteSequence k = EtcdWatch.bytes(key.storageKey());
    ByteSequence v = EtcdWatch.bytes(DiscoveryCodec.encodeToString(record));
    PutOption withLease = PutOption.builder().withLeaseId(leaseId).build();
    TxnResponse txn = await(client.getKVClient().txn()
        .If(new Cmp(k, Cmp.Op.EQUAL, CmpTarget.version(0)))
        .Then(Op.put(k, v, withLease))
        .Else(Op.get(k, GetOption.DEFAULT))
        .commit(), "register " + key.storageKey());
    boolean created = txn.isSucceeded();
    if (!created) {
      await(client.getKVClient().put(k, v, withLease), "update " + key.storageKey());
    }
    registered.add(key.storageKey());
    LOG.info("etcd discovery {} {} under lease {}", created ? "registered" : "updated", key.storageKey(),
        Long.toHexString(leaseId));
    return created;
  }

  /**
   * Deletes one of the relay's own records.
   *
   * @return true if the key existed
   * @throws DiscoveryException {@code UNAVAILABLE} if etcd does not answer, {@code CLOSED} after {@link #close()}
   */
  public boolean deregister(DiscoveryKey key) throws DiscoveryException {
    synchronized (lifecycle) {
      if (closed) {
        throw new DiscoveryException(DiscoveryException.Kind.CLOSED, "etcd discovery is closed");
      }
    }
    long deleted = await(client.getKVClient().delete(EtcdWatch.bytes(key.storageKey()), DeleteOption.DEFAULT),
        "deregister " + key.storageKey()).getDeleted();
    registered.remove(key.storageKey());
    LOG.info("etcd discovery deregistered {}", key.storageKey());
    return deleted > 0;
  }

  /**
   * A registration under the primary lease ({@link #register} / {@link #deregister}); closing it deletes the keys it
   * registered (the lease itself lives as long as this backend).
   */
  @Override
  public DiscoveryRegistrar registrar() throws DiscoveryException {
    checkUsable();
    return new LeaseRegistrar();
  }

  /**
   * Thread-safe (synchronized, see {@link OwnedKeysRegistrar}): the keys one {@link #registrar()} wrote under the
   * primary lease.
   */
  private final class LeaseRegistrar extends OwnedKeysRegistrar {
    LeaseRegistrar() {
      super(leaseId);
    }

    @Override
    protected void write(DiscoveryRecord record) throws DiscoveryException {
      EtcdDiscovery.this.register(record);
    }

    @Override
    protected void withdraw(DiscoveryKey key) throws DiscoveryException {
      EtcdDiscovery.this.deregister(key);
    }

    @Override
    protected void withdrawOnClose(List<DiscoveryKey> keys) {
      for (DiscoveryKey k : keys) {
        try {
          EtcdDiscovery.this.deregister(k);
        } catch (DiscoveryException e) {
          LOG.warn("etcd discovery could not delete {} on close ({}); the lease will expire it", k.storageKey(),
              e.getMessage());
        }
      }
    }

    @Override
    protected DiscoveryException closedError() {
      return new DiscoveryException(DiscoveryException.Kind.CLOSED, "etcd registration is closed");
    }
  }

  private void checkUsable() throws DiscoveryException {
    synchronized (lifecycle) {
      if (closed) {
        throw new DiscoveryException(DiscoveryException.Kind.CLOSED, "etcd discovery is closed");
      }
    }
    if (leaseLost.get()) {
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE,
          "the primary etcd lease " + Long.toHexString(leaseId) + " is lost; the process must restart to register");
    }
  }

  private static <T> T await(java.util.concurrent.CompletableFuture<T> future, String what) throws DiscoveryException {
    try {
      return future.get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = causeOf(e);
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "etcd " + what + " failed: "
          + cause.getMessage(), cause);
    } catch (TimeoutException e) {
      future.cancel(true);
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "etcd " + what + " timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DiscoveryException(DiscoveryException.Kind.UNAVAILABLE, "interrupted: etcd " + what, e);
    }
  }

  /** The counters, summed over every watch. */
  public EtcdDiscoveryStats stats() {
    return new EtcdDiscoveryStats(counters.eventsApplied.sum(), counters.decodeFailures.sum(),
        counters.streamInterruptions.sum(), counters.resyncs.sum(), counters.compactions.sum(),
        counters.leaseKeepAliveErrors.sum(), leaseLost.get(), registered.size());
  }

  /** Closes every watch, revokes the primary lease (deleting the relay's own keys at once) and the client. */
  @Override
  public void close() {
    List<EtcdWatch> open;
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
      open = new ArrayList<>(watches);
    }
    for (EtcdWatch w : open) {
      w.close();
    }
    keepAlive.close();
    if (!leaseLost.getAndSet(true)) {
      try {
        client.getLeaseClient().revoke(leaseId).get(2, TimeUnit.SECONDS);
        LOG.info("etcd discovery revoked lease {} ({} own keys deleted)", Long.toHexString(leaseId), registered.size());
      } catch (Exception e) {
        LOG.warn("etcd discovery could not revoke lease {} ({}); its keys expire within {} s",
            Long.toHexString(leaseId), e.getMessage(), settings.leaseTtl().toSeconds());
      }
    }
    registered.clear();
    client.close();
  }

  /** Thread-safe (callbacks from jetcd's event loop touch only atomics): watches the primary lease's keep-alive. */
  private final class KeepAliveObserver implements StreamObserver<LeaseKeepAliveResponse> {
    @Override
    public void onNext(LeaseKeepAliveResponse value) {
      // renewed
    }

    @Override
    public void onError(Throwable t) {
      if (t instanceof EtcdException etcdException && etcdException.getErrorCode() == ErrorCode.NOT_FOUND) {
        lost("etcd no longer knows it (" + t.getMessage() + ")");
        return;
      }
      counters.leaseKeepAliveErrors.increment();
      LOG.warn("etcd discovery keep-alive of lease {} failed ({}); retrying", Long.toHexString(leaseId),
          t.getMessage());
    }

    @Override
    public void onCompleted() {
      lost("its TTL passed without a successful keep-alive");
    }

    private void lost(String why) {
      synchronized (lifecycle) {
        if (closed) {
          return;
        }
      }
      if (!leaseLost.getAndSet(true)) {
        LOG.error("etcd discovery lost its primary lease {}: {}; the relay's own {} keys are gone",
            Long.toHexString(leaseId), why, registered.size());
      }
    }
  }
}
