package dev.kvrelay.launcher.inspect;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import dev.kvrelay.api.RelayException;
import dev.kvrelay.ckf.consumer.GlobalCkfBuildException;
import dev.kvrelay.ckf.hashing.BlockHashSalt;
import dev.kvrelay.ckf.hashing.HashingInputException;
import dev.kvrelay.ckf.hashing.TokenBlockHasher;
import dev.kvrelay.engine.wan.CatalogUpdate;
import dev.kvrelay.engine.wan.CatalogValidator;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wan.PoolFrame;
import dev.kvrelay.engine.wan.RelayStream;
import dev.kvrelay.grpc.client.RelayGrpcClient;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Not thread-safe: confined to the thread running the command line. {@code kvrelay inspect}: grpcurl for the
 * {@code dynamo.kvrelay.v1.KvEventRelay} contract (wan-grpc §1) with a CBI1 pool validator (ckf-cbi1 §6) and a
 * prefix-depth query. Self-contained: {@code new CommandLine(new InspectCommand()).execute(args)}.
 *
 * <p>Exit codes: {@value #OK} everything answered and validated; {@value #INVALID} a pool or query stream broke
 * the contract (the violation names its frame) or the snapshot did not complete in time; {@value #USAGE} usage
 * error; {@value #CALL_FAILED} a call failed (the message names the gRPC status and {@code kv-relay-error-reason}).
 */
@Command(name = "inspect", mixinStandardHelpOptions = true, synopsisSubcommandLabel = "COMMAND",
    description = "Look at a running KV DC Relay: metadata streams as proto3 JSON, as grpcurl prints them, or "
        + "tables, and a validating CKF pool subscriber.",
    subcommands = {InspectCommand.Info.class, InspectCommand.Catalog.class, InspectCommand.Readiness.class,
        InspectCommand.Load.class, InspectCommand.ServingLoad.class, InspectCommand.Pool.class,
        InspectCommand.Query.class},
    exitCodeListHeading = "Exit codes:%n",
    exitCodeList = {"0:everything answered and validated", "1:a pool/query stream broke the contract",
        "2:usage error", "3:a call failed: gRPC status and kv-relay-error-reason printed"})
public final class InspectCommand implements Runnable {
  /** Exit code: everything answered and validated. */
  public static final int OK = 0;
  /** Exit code: a frame broke the contract, or the snapshot did not complete. */
  public static final int INVALID = 1;
  /** Exit code: usage error (picocli's). */
  public static final int USAGE = 2;
  /** Exit code: a call failed. */
  public static final int CALL_FAILED = 3;
  /** The default inbound message limit, 8 MiB (grpcurl's {@code -max-msg-sz 8388608} in the seed). */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

  @Spec
  private @Nullable CommandSpec spec;

  /** Runs {@code kvrelay inspect} as its own program. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new InspectCommand()).execute(args));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(java.util.Objects.requireNonNull(spec).commandLine(),
        "missing command: info, catalog, readiness, load, serving-load, pool or query");
  }

  /** Immutable: how output is printed. */
  enum Output {
    json,
    table
  }

  /** Not thread-safe: picocli fills it on the parsing thread. The options every subcommand shares. */
  static final class Connection {
    @Option(names = "--target", required = true, paramLabel = "HOST:PORT", description = "The relay's gRPC listener.")
    String target = "";

    @Option(names = "--output", defaultValue = "json", paramLabel = "json|table",
        description = "proto3 JSON as grpcurl prints it (default) or a table.")
    Output output = Output.json;

    @Option(names = "--max-msg-sz", defaultValue = "" + DEFAULT_MAX_MESSAGE_BYTES, paramLabel = "BYTES",
        description = "Largest inbound message (default 8 MiB).")
    int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;

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

    /** True when a TLS option was given (plaintext h2c otherwise, the default). */
    boolean tls() {
      return caCertificates != null || clientCertificate != null;
    }

    /** Checks the TLS options' combination; a usage error names the missing half. */
    void checkTls() {
      if ((clientCertificate == null) != (clientKey == null)) {
        throw new CommandLine.ParameterException(java.util.Objects.requireNonNull(mixee).commandLine(),
            "--cert and --key go together");
      }
    }

    /** The channel credentials: plaintext, or TLS with the given CA and client certificate. */
    io.grpc.ChannelCredentials credentials() {
      checkTls();
      if (!tls()) {
        return io.grpc.InsecureChannelCredentials.create();
      }
      io.grpc.TlsChannelCredentials.Builder b = io.grpc.TlsChannelCredentials.newBuilder();
      try {
        if (caCertificates != null) {
          b.trustManager(caCertificates.toFile());
        }
        if (clientCertificate != null) {
          b.keyManager(clientCertificate.toFile(), java.util.Objects.requireNonNull(clientKey).toFile());
        }
      } catch (IOException e) {
        throw new CommandLine.ParameterException(java.util.Objects.requireNonNull(mixee).commandLine(),
            "cannot read TLS material: " + e.getMessage());
      }
      return b.build();
    }

    PrintWriter out() {
      return java.util.Objects.requireNonNull(mixee).commandLine().getOut();
    }

    PrintWriter err() {
      return java.util.Objects.requireNonNull(mixee).commandLine().getErr();
    }

    int fail(InspectException e) {
      err().println("kvrelay inspect: " + e.getMessage());
      err().flush();
      return CALL_FAILED;
    }

    int fail(String call, RelayException e) {
      err().println("kvrelay inspect: " + describe(call, e));
      err().flush();
      return CALL_FAILED;
    }
  }

  /**
   * {@code call: STATUS kv-relay-error-reason=REASON: message}: the status the wire carried (the client's message
   * starts {@code gRPC STATUS}), else the reason's own status code (an error the client found itself).
   */
  static String describe(String call, RelayException e) {
    String status = e.reason().statusCode();
    String message = e.getMessage();
    if (message != null && message.startsWith("gRPC ")) {
      int end = message.indexOf(':');
      status = end < 0 ? message.substring(5) : message.substring(5, end);
    }
    return call + ": " + status + " kv-relay-error-reason=" + e.reason().wireName() + ": " + message;
  }

  /** Not thread-safe: confined to the parsing thread. A call of one relay method, printed as JSON or a table. */
  abstract static class MethodCommand implements java.util.concurrent.Callable<Integer> {
    @Mixin
    Connection connection = new Connection();

    @Option(names = "--watch", description = "Keep printing updates until interrupted (streams only).")
    boolean watch;

    @Option(names = "--subscriber-id", paramLabel = "ID", description = "The stream's subscriber id.")
    @Nullable String subscriberId;

    abstract String method();

    @Override
    public Integer call() {
      try (ReflectedRelay relay = ReflectedRelay.connect(connection.target, connection.credentials(),
          connection.maxMessageBytes)) {
        MethodDescriptor m = relay.method(method());
        DynamicMessage request = relay.standardRequest(m,
            subscriberId != null ? subscriberId : "kvrelay-inspect-" + ProcessHandle.current().pid());
        if (!m.isServerStreaming()) {
          print(relay, relay.unary(m, request));
          return OK;
        }
        try (ReflectedRelay.Streaming s = relay.stream(m, request)) {
          Iterator<DynamicMessage> it = s.messages();
          do {
            DynamicMessage next;
            try {
              if (!it.hasNext()) {
                return OK;
              }
              next = it.next();
            } catch (StatusRuntimeException e) {
              throw InspectException.of(m.getName(), e);
            }
            print(relay, next);
          } while (watch);
        }
        return OK;
      } catch (InspectException e) {
        return connection.fail(e);
      }
    }

    private void print(ReflectedRelay relay, DynamicMessage message) {
      PrintWriter out = connection.out();
      if (connection.output == Output.json) {
        out.println(relay.json(message));
      } else {
        out.println(Table.of(message));
      }
      out.flush();
    }
  }

  /** Not thread-safe: confined to the parsing thread. GetRelayInfo. */
  @Command(name = "info", mixinStandardHelpOptions = true, description = "GetRelayInfo: the relay's identity.")
  static final class Info extends MethodCommand {
    @Override
    String method() {
      return "GetRelayInfo";
    }
  }

  /** Not thread-safe: confined to the parsing thread. WatchKvPoolCatalog. */
  @Command(name = "catalog", mixinStandardHelpOptions = true, description = "WatchKvPoolCatalog: the pools.")
  static final class Catalog extends MethodCommand {
    @Override
    String method() {
      return "WatchKvPoolCatalog";
    }
  }

  /** Not thread-safe: confined to the parsing thread. SubscribeServingReadiness. */
  @Command(name = "readiness", mixinStandardHelpOptions = true,
      description = "SubscribeServingReadiness: present and missing roles per namespace and model.")
  static final class Readiness extends MethodCommand {
    @Override
    String method() {
      return "SubscribeServingReadiness";
    }
  }

  /** Not thread-safe: confined to the parsing thread. SubscribeKvPoolLoad. */
  @Command(name = "load", mixinStandardHelpOptions = true, description = "SubscribeKvPoolLoad: KV load windows.")
  static final class Load extends MethodCommand {
    @Override
    String method() {
      return "SubscribeKvPoolLoad";
    }
  }

  /** Not thread-safe: confined to the parsing thread. SubscribeServingLoad. */
  @Command(name = "serving-load", mixinStandardHelpOptions = true,
      description = "SubscribeServingLoad: request and token load windows.")
  static final class ServingLoad extends MethodCommand {
    @Override
    String method() {
      return "SubscribeServingLoad";
    }
  }

  /** Not thread-safe: confined to the parsing thread. What pool and query share: the pool and its replica. */
  abstract static class PoolCommand implements java.util.concurrent.Callable<Integer> {
    @Mixin
    Connection connection = new Connection();

    @Parameters(index = "0", arity = "0..1", paramLabel = "NS.COMP.EP",
        description = "The pool's serving endpoint (default: the first catalog pool).")
    @Nullable String endpoint;

    /** The catalog's pool for {@link #endpoint}, or null (error printed). */
    @Nullable KvPoolDescriptor pick(RelayGrpcClient client) throws RelayException, InterruptedException {
      CatalogUpdate update;
      try (RelayStream<CatalogUpdate> catalog = client.watchCatalog("kvrelay-inspect-catalog")) {
        update = catalog.poll(15, TimeUnit.SECONDS);
      }
      if (update == null) {
        connection.err().println("kvrelay inspect: WatchKvPoolCatalog sent no update in 15 s");
        return null;
      }
      List<KvPoolDescriptor> pools = CatalogValidator.validateAll(update.pools()).usable();
      for (KvPoolDescriptor d : pools) {
        if (endpoint == null || d.servingEndpoint().dottedName().equals(endpoint)
            || d.servingEndpoint().path().equals(endpoint)) {
          return d;
        }
      }
      List<String> names = new ArrayList<>();
      pools.forEach(d -> names.add(d.servingEndpoint().dottedName()));
      connection.err().println("kvrelay inspect: no catalog pool " + (endpoint == null ? "at all" : endpoint)
          + " (catalog revision " + Long.toUnsignedString(update.revision()) + ": " + names + ")");
      return null;
    }

    RelayGrpcClient client() {
      connection.checkTls();
      RelayGrpcClient.Builder b = RelayGrpcClient.builder().target(connection.target)
          .maxInboundMessageSize(connection.maxMessageBytes).inboundQueueBound(RelayGrpcClient.MAX_INBOUND_QUEUE_BOUND);
      if (connection.caCertificates != null) {
        b.trustCertificates(connection.caCertificates);
      }
      if (connection.clientCertificate != null) {
        b.clientCertificate(connection.clientCertificate, java.util.Objects.requireNonNull(connection.clientKey));
      }
      return b.build();
    }

    /**
     * Subscribes and validates until {@code until} returns true or {@code seconds} pass; the session holds the
     * outcome. Returns null (error printed) when the subscription itself failed.
     */
    @Nullable PoolSession follow(RelayGrpcClient client, KvPoolDescriptor pool, double seconds, boolean stopWhenInstalled,
        boolean progress) throws RelayException, InterruptedException, GlobalCkfBuildException {
      PoolSession session = new PoolSession(pool.producer());
      RelayStream<PoolFrame> stream;
      try {
        stream = client.subscribePool(pool.producer().poolId(), pool.producer(), "kvrelay-inspect-pool")
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
        session.failStream("SubscribeKvPool failed: " + describe("SubscribeKvPool", e));
      }
      if (session.violation() == null && !session.installed()) {
        session.failStream("no complete snapshot within " + seconds + " s");
      }
      return session;
    }
  }

  /** Not thread-safe: confined to the parsing thread. Subscribes to one pool and validates every frame. */
  @Command(name = "pool", mixinStandardHelpOptions = true,
      description = "Subscribe to a pool with the catalog's producer, assemble and validate its CBI1 snapshot, "
          + "apply and validate deltas, and report the filter. Exit 0 only if every frame validated.")
  static final class Pool extends PoolCommand {
    @Option(names = "--seconds", defaultValue = "10", paramLabel = "N", description = "Follow for N seconds.")
    double seconds = 10;

    @Override
    public Integer call() throws Exception {
      try (RelayGrpcClient client = client()) {
        KvPoolDescriptor pool;
        try {
          pool = pick(client);
        } catch (RelayException e) {
          return connection.fail("WatchKvPoolCatalog", e);
        }
        if (pool == null) {
          return CALL_FAILED;
        }
        PoolSession s;
        long start = System.nanoTime();
        try {
          s = follow(client, pool, seconds, false, true);
        } catch (RelayException e) {
          return connection.fail("SubscribeKvPool", e);
        }
        if (s == null) {
          return CALL_FAILED;
        }
        long now = System.nanoTime();
        report(pool, s, start, now);
        if (s.violation() != null) {
          connection.err().println("kvrelay inspect: INVALID " + s.violation());
          connection.err().flush();
          return INVALID;
        }
        return OK;
      }
    }

    private void report(KvPoolDescriptor pool, PoolSession s, long start, long now) throws IOException {
      double followed = Math.max(1e-9, (now - (s.installedNanos() == 0 ? start : s.installedNanos())) / 1e9);
      long slots = (long) s.buckets() * dev.kvrelay.ckf.PackedBucket.SLOTS;
      List<Map.Entry<String, Object>> rows = new ArrayList<>();
      rows.add(Map.entry("pool", pool.servingEndpoint().dottedName()));
      rows.add(Map.entry("dcId", Long.toUnsignedString(pool.producer().poolId().dcId().value())));
      rows.add(Map.entry("producerIncarnation", Long.toUnsignedString(pool.producer().producerIncarnation())));
      rows.add(Map.entry("layoutGeneration", Long.toUnsignedString(pool.producer().layoutGeneration())));
      rows.add(Map.entry("buckets", s.buckets()));
      rows.add(Map.entry("occupiedSlots", s.occupiedSlots()));
      rows.add(Map.entry("fillRatio", s.occupiedSlots() / (double) slots));
      rows.add(Map.entry("sequence", Long.toUnsignedString(s.sequence())));
      rows.add(Map.entry("frames", s.frames()));
      rows.add(Map.entry("snapshotChunks", s.chunks()));
      rows.add(Map.entry("snapshotBytes", s.chunkBytes()));
      rows.add(Map.entry("deltas", s.deltas()));
      rows.add(Map.entry("deltaBytes", s.deltaBytes()));
      rows.add(Map.entry("deltasPerSecond", s.deltas() / followed));
      rows.add(Map.entry("heartbeats", s.heartbeats()));
      rows.add(Map.entry("heartbeatAgeMs", s.lastHeartbeatNanos() == 0 ? -1 : (now - s.lastHeartbeatNanos()) / 1e6));
      rows.add(Map.entry("valid", s.violation() == null));
      rows.add(Map.entry("violation", s.violation() == null ? "" : s.violation()));
      print(connection, rows);
    }
  }

  /** Not thread-safe: confined to the parsing thread. The prefix depth the pool's filter answers for a prompt. */
  @Command(name = "query", mixinStandardHelpOptions = true,
      description = "Install the pool's snapshot and answer the prefix depth in blocks of a token sequence, "
          + "hashed per the pool's query semantics: block size and hash format.")
  static final class Query extends PoolCommand {
    @Option(names = "--tokens", split = ",", paramLabel = "ID", description = "Token ids, comma separated.")
    int @Nullable [] tokens;

    @Option(names = "--text-file", paramLabel = "FILE",
        description = "A file of token ids separated by commas or white space.")
    @Nullable Path textFile;

    @Option(names = "--lora", paramLabel = "ADAPTER", description = "Hash as this LoRA adapter's request.")
    @Nullable String lora;

    @Option(names = "--seconds", defaultValue = "15", paramLabel = "N",
        description = "Wait at most N seconds for the snapshot.")
    double seconds = 15;

    @Spec
    @Nullable CommandSpec self;

    @Override
    public Integer call() throws Exception {
      int[] ids = readTokens();
      try (RelayGrpcClient client = client()) {
        KvPoolDescriptor pool;
        try {
          pool = pick(client);
        } catch (RelayException e) {
          return connection.fail("WatchKvPoolCatalog", e);
        }
        if (pool == null) {
          return CALL_FAILED;
        }
        PoolSession s;
        try {
          s = follow(client, pool, seconds, true, false);
        } catch (RelayException e) {
          return connection.fail("SubscribeKvPool", e);
        }
        if (s == null) {
          return CALL_FAILED;
        }
        if (s.violation() != null) {
          connection.err().println("kvrelay inspect: INVALID " + s.violation());
          connection.err().flush();
          return INVALID;
        }
        TokenBlockHasher hasher;
        try {
          hasher = TokenBlockHasher.create(pool.querySemantics().hashFormat(), pool.querySemantics().kvBlockSize(),
              lora == null ? BlockHashSalt.NONE : BlockHashSalt.of(lora, ""));
        } catch (HashingInputException e) {
          throw new IllegalStateException("validated query semantics refused: " + e.getMessage(), e);
        }
        long[] hashes = hasher.sequenceHashes(ids);
        int depth = s.prefixDepth(hashes);
        List<Map.Entry<String, Object>> rows = new ArrayList<>();
        rows.add(Map.entry("pool", pool.servingEndpoint().dottedName()));
        rows.add(Map.entry("sequence", Long.toUnsignedString(s.sequence())));
        rows.add(Map.entry("blockSize", pool.querySemantics().kvBlockSize()));
        rows.add(Map.entry("hashFormat", pool.querySemantics().hashFormat().toString()));
        rows.add(Map.entry("tokens", ids.length));
        rows.add(Map.entry("requestBlocks", hashes.length));
        rows.add(Map.entry("prefixBlocks", depth));
        rows.add(Map.entry("prefixTokens", (long) Math.max(depth, 0) * pool.querySemantics().kvBlockSize()));
        print(connection, rows);
        return OK;
      }
    }

    private int[] readTokens() throws IOException {
      CommandLine cl = java.util.Objects.requireNonNull(self).commandLine();
      if ((tokens == null) == (textFile == null)) {
        throw new CommandLine.ParameterException(cl, "give exactly one of --tokens and --text-file");
      }
      if (tokens != null) {
        return tokens;
      }
      String text = Files.readString(java.util.Objects.requireNonNull(textFile), StandardCharsets.UTF_8).trim();
      if (text.isEmpty()) {
        return new int[0];
      }
      String[] parts = text.split("[,\\s]+");
      int[] out = new int[parts.length];
      for (int i = 0; i < parts.length; i++) {
        try {
          out[i] = Integer.parseInt(parts[i]);
        } catch (NumberFormatException e) {
          throw new CommandLine.ParameterException(cl, textFile + ": not a token id: " + parts[i]);
        }
      }
      return out;
    }
  }

  /** Prints {@code rows} as one JSON object or as a two-column table. */
  static void print(Connection c, List<Map.Entry<String, Object>> rows) throws IOException {
    PrintWriter out = c.out();
    if (c.output == Output.json) {
      StringWriter w = new StringWriter();
      try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
        g.useDefaultPrettyPrinter();
        g.writeStartObject();
        for (Map.Entry<String, Object> e : rows) {
          g.writeFieldName(e.getKey());
          Object v = e.getValue();
          if (v instanceof Integer i) {
            g.writeNumber(i);
          } else if (v instanceof Long l) {
            g.writeNumber(l);
          } else if (v instanceof Double d) {
            g.writeNumber(d);
          } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
          } else {
            g.writeString(String.valueOf(v));
          }
        }
        g.writeEndObject();
      }
      out.println(w);
    } else {
      int width = 0;
      for (Map.Entry<String, Object> e : rows) {
        width = Math.max(width, e.getKey().length());
      }
      for (Map.Entry<String, Object> e : rows) {
        Object v = e.getValue();
        String text = v instanceof Double d ? String.format(Locale.ROOT, "%.4f", d) : String.valueOf(v);
        out.printf(Locale.ROOT, "%-" + width + "s  %s%n", e.getKey(), text);
      }
    }
    out.flush();
  }

  /** Immutable helper: a message as {@code field.path  value} rows (proto field names, repeated entries indexed). */
  static final class Table {
    private Table() {}

    static String of(Message m) {
      List<String[]> rows = new ArrayList<>();
      walk("", m, rows);
      int width = 0;
      for (String[] r : rows) {
        width = Math.max(width, r[0].length());
      }
      StringBuilder b = new StringBuilder();
      for (String[] r : rows) {
        b.append(String.format(Locale.ROOT, "%-" + width + "s  %s%n", r[0], r[1]));
      }
      return b.toString().stripTrailing();
    }

    private static void walk(String prefix, Message m, List<String[]> rows) {
      for (Map.Entry<FieldDescriptor, Object> e : m.getAllFields().entrySet()) {
        FieldDescriptor f = e.getKey();
        String name = prefix + f.getName();
        if (f.isRepeated()) {
          List<?> items = (List<?>) e.getValue();
          for (int i = 0; i < items.size(); i++) {
            one(name + "[" + i + "]", f, items.get(i), rows);
          }
        } else {
          one(name, f, e.getValue(), rows);
        }
      }
    }

    private static void one(String name, FieldDescriptor f, Object v, List<String[]> rows) {
      if (v instanceof Message sub) {
        walk(name + ".", sub, rows);
        return;
      }
      String text;
      if (v instanceof com.google.protobuf.ByteString bs) {
        text = java.util.HexFormat.of().formatHex(bs.toByteArray());
      } else if (v instanceof Long l && (f.getType() == FieldDescriptor.Type.UINT64
          || f.getType() == FieldDescriptor.Type.FIXED64)) {
        text = Long.toUnsignedString(l);
      } else if (v instanceof Integer i && (f.getType() == FieldDescriptor.Type.UINT32
          || f.getType() == FieldDescriptor.Type.FIXED32)) {
        text = Integer.toUnsignedString(i);
      } else {
        text = String.valueOf(v);
      }
      rows.add(new String[] {name, text});
    }
  }
}
