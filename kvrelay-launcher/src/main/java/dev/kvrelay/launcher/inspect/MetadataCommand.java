package dev.kvrelay.launcher.inspect;

import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.DynamicMessage;
import io.grpc.Context;
import io.grpc.StatusRuntimeException;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Not thread-safe: confined to the thread running the command line (a {@code --seconds} deadline only cancels the
 * call's gRPC context). The metadata verbs: one relay method called by reflection, as grpcurl does, its answers printed as proto3
 * JSON or a table; one update of a stream, or more with {@code --watch} (until interrupted), {@code --count N} or
 * {@code --seconds N}. The verbs are the nested subclasses, one per method.
 */
abstract class MetadataCommand implements Callable<Integer> {
  @Mixin
  ConnectionOptions connection = new ConnectionOptions();

  @Option(names = "--watch", description = "Keep printing updates until interrupted (streams only).")
  boolean watch;

  @Option(names = "--count", paramLabel = "N", description = "Print N updates, then exit (implies --watch).")
  @Nullable Integer count;

  @Option(names = "--seconds", paramLabel = "N",
      description = "Watch for N seconds, then exit 0 (implies --watch; with --count, whichever comes first).")
  @Nullable Double seconds;

  @Option(names = "--subscriber-id", paramLabel = "ID", description = "The stream's subscriber id.")
  @Nullable String subscriberId;

  @Spec
  @Nullable CommandSpec self;

  /** The relay method this verb calls. */
  abstract String method();

  @Override
  public Integer call() {
    CommandLine cl = java.util.Objects.requireNonNull(self).commandLine();
    if (count != null && count < 1) {
      throw new CommandLine.ParameterException(cl, "--count must be at least 1: " + count);
    }
    if (seconds != null && !(seconds > 0)) {
      throw new CommandLine.ParameterException(cl, "--seconds must be positive: " + seconds);
    }
    long limit = count != null ? count : watch || seconds != null ? Long.MAX_VALUE : 1;
    try (ReflectedRelay relay = ReflectedRelay.connect(connection.channel())) {
      MethodDescriptor m = relay.method(method());
      DynamicMessage request = relay.standardRequest(m,
          subscriberId != null ? subscriberId : "kvrelay-inspect-" + ProcessHandle.current().pid());
      if (!m.isServerStreaming()) {
        print(relay, relay.unary(m, request));
        return InspectCommand.OK;
      }
      return watch(relay, m, request, limit);
    } catch (InspectException e) {
      return connection.fail(e);
    }
  }

  private int watch(ReflectedRelay relay, MethodDescriptor m, DynamicMessage request, long limit)
      throws InspectException {
    ScheduledExecutorService timer = null;
    Context.CancellableContext window = null;
    Context previous = null;
    if (seconds != null) {
      // gRPC's cross-thread cancellation: the call started in this context ends when the deadline passes
      timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "kvrelay-inspect-watch-timer");
        t.setDaemon(true);
        return t;
      });
      window = Context.current().withDeadlineAfter((long) (seconds * 1e9), TimeUnit.NANOSECONDS, timer);
      previous = window.attach();
    }
    try (ReflectedRelay.Streaming s = relay.stream(m, request)) {
      Iterator<DynamicMessage> it = s.messages();
      for (long printed = 0; printed < limit; printed++) {
        DynamicMessage next;
        try {
          if (!it.hasNext()) {
            return InspectCommand.OK;
          }
          next = it.next();
        } catch (StatusRuntimeException e) {
          if (window != null && window.isCancelled()) {
            return InspectCommand.OK; // --seconds passed
          }
          throw InspectException.of(m.getName(), e);
        }
        print(relay, next);
      }
      return InspectCommand.OK;
    } finally {
      if (window != null) {
        window.detach(previous);
        window.cancel(null);
      }
      if (timer != null) {
        timer.shutdownNow();
      }
    }
  }

  private void print(ReflectedRelay relay, DynamicMessage message) {
    PrintWriter out = connection.out();
    out.println(connection.output == ConnectionOptions.Output.json ? relay.json(message) : Report.table(message));
    out.flush();
  }

  /** Not thread-safe: confined to the parsing thread. GetRelayInfo. */
  @Command(name = "info", mixinStandardHelpOptions = true, description = "GetRelayInfo: the relay's identity.")
  static final class Info extends MetadataCommand {
    @Override
    String method() {
      return "GetRelayInfo";
    }
  }

  /** Not thread-safe: confined to the parsing thread. WatchKvPoolCatalog. */
  @Command(name = "catalog", mixinStandardHelpOptions = true, description = "WatchKvPoolCatalog: the pools.")
  static final class Catalog extends MetadataCommand {
    @Override
    String method() {
      return "WatchKvPoolCatalog";
    }
  }

  /** Not thread-safe: confined to the parsing thread. SubscribeServingReadiness. */
  @Command(name = "readiness", mixinStandardHelpOptions = true,
      description = "SubscribeServingReadiness: present and missing roles per namespace and model.")
  static final class Readiness extends MetadataCommand {
    @Override
    String method() {
      return "SubscribeServingReadiness";
    }
  }

  /** Not thread-safe: confined to the parsing thread. SubscribeKvPoolLoad. */
  @Command(name = "load", mixinStandardHelpOptions = true, description = "SubscribeKvPoolLoad: KV load windows.")
  static final class Load extends MetadataCommand {
    @Override
    String method() {
      return "SubscribeKvPoolLoad";
    }
  }

  /** Not thread-safe: confined to the parsing thread. SubscribeServingLoad. */
  @Command(name = "serving-load", mixinStandardHelpOptions = true,
      description = "SubscribeServingLoad: request and token load windows.")
  static final class ServingLoad extends MetadataCommand {
    @Override
    String method() {
      return "SubscribeServingLoad";
    }
  }
}
