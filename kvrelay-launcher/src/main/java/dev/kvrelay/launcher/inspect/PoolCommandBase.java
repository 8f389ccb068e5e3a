package dev.kvrelay.launcher.inspect;

import dev.kvrelay.api.RelayException;
import dev.kvrelay.ckf.consumer.GlobalCkfBuildException;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.CatalogUpdate;
import dev.kvrelay.engine.wire.CatalogValidator;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import io.grpc.ManagedChannel;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * Not thread-safe: confined to the thread running the command line. What {@code pool} and {@code query} share: the
 * pool's endpoint parameter, the catalog lookup, the {@link RelayGrpcClient} on the options' channel, and following
 * one pool stream into a validated {@link PoolSession}.
 */
abstract class PoolCommandBase implements Callable<Integer> {
  @Mixin
  ConnectionOptions connection = new ConnectionOptions();

  @Parameters(index = "0", arity = "0..1", paramLabel = "NS.COMP.EP",
      description = "The pool's serving endpoint (default: the first catalog pool).")
  @Nullable String endpoint;

  /**
   * Not thread-safe: confined to the command's thread. The options' channel and the client on it; closing closes
   * both.
   */
  record Connected(ManagedChannel channel, RelayGrpcClient client) implements AutoCloseable {
    @Override
    public void close() {
      client.close();
      channel.shutdownNow();
      try {
        channel.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A client of the target on the options' channel (TLS, authority, inbound limit). */
  Connected connect() {
    ManagedChannel channel = connection.channel();
    try {
      return new Connected(channel, RelayGrpcClient.builder().channel(channel)
          .maxInboundMessageSize(connection.maxMessageBytes())
          .inboundQueueBound(RelayGrpcClient.MAX_INBOUND_QUEUE_BOUND).build());
    } catch (RuntimeException e) {
      channel.shutdownNow();
      throw e;
    }
  }

  /** The catalog's pool for {@link #endpoint} (the first one when none is given), or null (error printed). */
  @Nullable KvPoolDescriptor pick(RelayGrpcClient client) throws RelayException, InterruptedException {
    return pick(client, d -> true, "");
  }

  /**
   * The first usable catalog pool for {@link #endpoint} that {@code also} accepts, or null (error printed, naming
   * {@code what} after the endpoint).
   */
  @Nullable KvPoolDescriptor pick(RelayGrpcClient client, Predicate<KvPoolDescriptor> also, String what)
      throws RelayException, InterruptedException {
    CatalogUpdate update;
    try (RelayStream<CatalogUpdate> catalog = WireSources.of(client).watchCatalog("kvrelay-inspect-catalog")) {
      update = catalog.poll(15, TimeUnit.SECONDS);
    }
    if (update == null) {
      connection.err().println("kvrelay inspect: WatchKvPoolCatalog sent no update in 15 s");
      return null;
    }
    List<KvPoolDescriptor> pools = CatalogValidator.validateAll(update.pools()).usable();
    for (KvPoolDescriptor d : pools) {
      if ((endpoint == null || d.servingEndpoint().dottedName().equals(endpoint)
          || d.servingEndpoint().path().equals(endpoint)) && also.test(d)) {
        return d;
      }
    }
    List<String> names = new ArrayList<>();
    pools.forEach(d -> names.add(d.servingEndpoint().dottedName()));
    connection.err().println("kvrelay inspect: no catalog pool"
        + (endpoint != null ? " " + endpoint : what.isEmpty() ? " at all" : "") + what
        + " (catalog revision " + Long.toUnsignedString(update.revision()) + ": " + names + ")");
    return null;
  }

  /**
   * Subscribes and validates until the snapshot installed ({@code stopWhenInstalled}) or {@code seconds} pass; the
   * session holds the outcome. Returns null (error printed) when the subscription itself sent nothing.
   */
  @Nullable PoolSession follow(RelayGrpcClient client, KvPoolDescriptor pool, double seconds, boolean stopWhenInstalled,
      boolean progress) throws RelayException, InterruptedException, GlobalCkfBuildException {
    PoolSession session = new PoolSession(pool.producer());
    RelayStream<PoolFrame> stream;
    try {
      stream = WireSources.of(client).subscribePool(pool.producer().poolId(), pool.producer(), "kvrelay-inspect-pool")
          .get(15, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RelayException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      connection.err().println("kvrelay inspect: SubscribeKvPool sent nothing in 15 s");
      return null;
    }
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    long lastProgress = 0;
    PrintWriter err = connection.err();
    try (stream) {
      while (System.nanoTime() < end) {
        PoolFrame f = stream.poll(100, TimeUnit.MILLISECONDS);
        long now = System.nanoTime();
        if (f == null) {
          if (stream.isFinished()) {
            session.failStream("SubscribeKvPool ended cleanly before the deadline");
            break;
          }
          continue;
        }
        boolean wasInstalled = session.installed();
        if (!session.apply(f, now)) {
          break;
        }
        if (progress && !wasInstalled && (session.installed() || now - lastProgress > 200_000_000L)) {
          lastProgress = now;
          double secs = Math.max(1e-9, (now - start) / 1e9);
          err.printf(Locale.ROOT, "\rsnapshot: %d chunks, %d bytes, %.2f MB/s%s", session.chunks(),
              session.chunkBytes(), session.chunkBytes() / secs / 1e6, session.installed() ? " - installed\n" : "");
          err.flush();
        }
        if (stopWhenInstalled && session.installed()) {
          break;
        }
      }
    } catch (RelayException e) {
      session.failStream("SubscribeKvPool failed: " + InspectCommand.describe("SubscribeKvPool", e));
    }
    if (session.violation() == null && !session.installed()) {
      session.failStream("no complete snapshot within " + seconds + " s");
    }
    return session;
  }

  /** Prints the session's violation as {@code INVALID …} and returns {@link InspectCommand#INVALID}. */
  int invalid(PoolSession s) {
    return connection.fail(InspectCommand.INVALID, "INVALID " + s.violation());
  }
}
