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

  @Test
  void aMaxMsgSzBelowTheClientsMinimumExits2BeforeAnyCall() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // nothing listens: a call would exit 3, the usage error comes first
    }
    Run r = run("inspect", "catalog", "--target", "127.0.0.1:" + port, "--max-msg-sz", "4259903");
    assertThat(r.status()).as("stdout: %s stderr: %s", r.out(), r.err()).isEqualTo(2);
    assertThat(r.err()).contains("--max-msg-sz 4259903 is below the minimum of 4259904 bytes")
        .doesNotContain("UNAVAILABLE");
  }

  @Test
  void aVerbsHelpListsTheSharedOptionsAndTheWatchBounds() {
    Run r = run("inspect", "load", "--help");
    assertThat(r.status()).as("stderr: %s", r.err()).isZero();
    String help = r.out() + r.err();
    // one mixin: picocli itself refuses a command declaring an option twice, so each appears in the list
    for (String option : new String[] {"--target", "--authority", "--max-msg-sz", "--cacert", "--output", "--count",
        "--seconds", "--watch"}) {
      assertThat(help).as(option).containsPattern("(?m)^\\s+" + java.util.regex.Pattern.quote(option) + "\\b");
    }
    assertThat(help).contains("default 8 MiB = 8388608").contains("at least 4259904");
  }
}
