package dev.kvrelay.launcher.inspect;

import dev.kvrelay.api.RelayException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Not thread-safe: confined to the thread running the command line. {@code kvrelay inspect}: grpcurl for the
 * {@code dynamo.kvrelay.v1.KvEventRelay} contract (wan-grpc §1) with a CBI1 pool validator (ckf-cbi1 §6) and a
 * prefix-depth query. Self-contained: {@code new CommandLine(new InspectCommand()).execute(args)}. The verbs are
 * {@link MetadataCommand}'s (info, catalog, readiness, load, serving-load), {@link PoolCommand} and
 * {@link QueryCommand}; every verb mixes in {@link ConnectionOptions}.
 *
 * <p>Exit codes: {@value #OK} everything answered and validated; {@value #INVALID} a pool or query stream broke
 * the contract (the violation names its frame) or the snapshot did not complete in time; {@value #USAGE} usage
 * error; {@value #CALL_FAILED} a call failed (the message names the gRPC status and {@code kv-relay-error-reason}).
 */
@Command(name = "inspect", mixinStandardHelpOptions = true, synopsisSubcommandLabel = "COMMAND",
    description = "Look at a running KV DC Relay: metadata streams as proto3 JSON, as grpcurl prints them, or "
        + "tables, and a validating CKF pool subscriber.",
    subcommands = {MetadataCommand.Info.class, MetadataCommand.Catalog.class, MetadataCommand.Readiness.class,
        MetadataCommand.Load.class, MetadataCommand.ServingLoad.class, PoolCommand.class, QueryCommand.class},
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
    throw new CommandLine.ParameterException(Objects.requireNonNull(spec).commandLine(),
        "missing command: info, catalog, readiness, load, serving-load, pool or query");
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
}
