package dev.kvrelay.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The stock jar's {@code inspect} subcommand is reached through {@link Main} with the command's exit codes. */
class MainInspectTest {

  private record Run(int status, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    int status;
    try (PrintStream out = new PrintStream(o, true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(e, true, StandardCharsets.UTF_8)) {
      status = Main.run(args, Map.of(), out, err, new StopRequest(), PluginRegistries.load());
    }
    return new Run(status, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
  }

  @Test
  void inspectWithoutASubcommandIsAUsageErrorAndNeverStartsARelay() {
    Run r = run("inspect");
    assertThat(r.status()).as("stderr: %s", r.err()).isEqualTo(2);
    assertThat(r.out() + r.err()).contains("info").contains("catalog").contains("pool")
        .doesNotContain("kvrelay: --dc-id or DYN_DC_ID is required");
  }

  @Test
  void inspectInfoAgainstAClosedPortNamesTheGrpcStatusAndExits3() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    Run r = run("inspect", "info", "--target", "127.0.0.1:" + port);
    assertThat(r.status()).as("stdout: %s stderr: %s", r.out(), r.err()).isEqualTo(3);
    assertThat(r.err()).contains("UNAVAILABLE");
  }
}
