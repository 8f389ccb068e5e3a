package dev.kvrelay.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.engine.BindAddress;
import dev.kvrelay.engine.EngineFaults;
import dev.kvrelay.engine.RelayEngine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code --serve-demo} argument parsing and the serving run in process (stopped through its stop request). */
@Timeout(60)
class ServeDemoTest {

  /** Output and status of one in-process run of {@link Main#run}. */
  private record Run(int status, String out, String err) {}

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      status = Main.run(args, o, e, serve -> {
        throw new AssertionError("the serving run must not start for " + String.join(" ", args));
      });
    }
    return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void serveDemoWithoutABindAddressIsAUsageError() {
    Run r = run("--serve-demo");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).startsWith("kvrelay: --serve-demo needs a bind address\nusage: ");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void badBindAddressesExit2WithTheUpstreamMessage() {
    for (String bad : new String[] {"localhost:5561", "127.0.0.1", "127.0.0.1:65536", "", "[::1%eth0]:5561",
        "01.2.3.4:5561", "::1:5561"}) {
      Run r = run("--serve-demo", bad);
      assertThat(r.status()).as("status for %s", bad).isEqualTo(2);
      assertThat(r.err()).as("error for %s", bad)
          .isEqualTo("kvrelay: invalid KV DC Relay bind address: " + bad + System.lineSeparator());
    }
  }

  @Test
  void anExtraArgumentAfterTheBindAddressIsAUsageError() {
    Run r = run("--serve-demo", "127.0.0.1:0", "--verbose");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).startsWith("kvrelay: unknown argument --verbose\nusage: ");
  }

  @Test
  void helpDescribesBothModesAndOtherArgumentsStayUsageErrors() {
    Run help = run("--help");
    assertThat(help.status()).isZero();
    assertThat(help.out()).contains("[--help | --serve-demo <bind>]", "kvrelay: serving us-west on <host:port>",
        "SIGTERM");
    Run unknown = run("--serve");
    assertThat(unknown.status()).isEqualTo(2);
    assertThat(unknown.err()).startsWith("kvrelay: unknown argument --serve\n");
  }

  @Test
  void theServingLineShowsTheBoundPortInTheAddressAsWritten() {
    assertThat(ServeDemo.hostPort(BindAddress.tryParse("127.0.0.1:0").orElseThrow(), 40123))
        .isEqualTo("127.0.0.1:40123");
    assertThat(ServeDemo.hostPort(BindAddress.tryParse("[::1]:0").orElseThrow(), 5561)).isEqualTo("[::1]:5561");
    assertThat(ServeDemo.hostPort(BindAddress.tryParse("[::ffff:1.2.3.4]:007").orElseThrow(), 7))
        .isEqualTo("[::ffff:1.2.3.4]:7");
  }

  @Test
  void aStopRequestEndsTheServingRunInOrderWithStatus0() throws Exception {
    Serving run = Serving.start();
    ByteArrayOutputStream out = run.out();
    ByteArrayOutputStream err = run.err();
    AtomicReference<ServeDemo> serve = run.serve();
    CompletableFuture<Integer> status = run.status();
    assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("kvrelay: serving us-west on 127.0.0.1:0\n");
    assertThat(status).as("serves until asked to stop").isNotDone();

    serve.get().requestStop("test");

    assertThat(status.get(10, TimeUnit.SECONDS)).as("stderr %s", err).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8)).matches(
        "kvrelay: serving us-west on 127\\.0\\.0\\.1:[1-9][0-9]*\\Rkvrelay: stopped\\R");
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("kvrelay: stopping on test");
  }

  @Test
  void anEngineThatEndsOnItsOwnExits1WithTheErrorPrinted() throws Exception {
    Serving run = Serving.start();
    ByteArrayOutputStream out = run.out();
    ByteArrayOutputStream err = run.err();
    AtomicReference<ServeDemo> serve = run.serve();
    CompletableFuture<Integer> status = run.status();
    RelayEngine engine = serve.get().engine();
    assertThat(engine).isNotNull();

    EngineFaults.failHost(engine, new IllegalStateException("load window publisher failed"));

    assertThat(status.get(10, TimeUnit.SECONDS)).as("stderr %s", err).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("kvrelay: the relay ended on its own: ")
        .contains("load window publisher failed");
    assertThat(out.toString(StandardCharsets.UTF_8)).as("no orderly-stop line").doesNotContain("kvrelay: stopped");
  }

  @Test
  void anAddressThatCannotBeBoundExits1() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int status = Main.run(new String[] {"--serve-demo", "127.0.0.1:" + taken.getLocalPort()},
          new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
      assertThat(status).isEqualTo(1);
      assertThat(err.toString(StandardCharsets.UTF_8))
          .startsWith("kvrelay: cannot serve on 127.0.0.1:" + taken.getLocalPort() + ": ");
      assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }
  }

  /** A {@code --serve-demo 127.0.0.1:0} run in the background, once its serving line was printed. */
  private record Serving(ByteArrayOutputStream out, ByteArrayOutputStream err, AtomicReference<ServeDemo> serve,
      CompletableFuture<Integer> status) {
    static Serving start() throws InterruptedException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      AtomicReference<ServeDemo> serve = new AtomicReference<>();
      PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
      PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
      CompletableFuture<Integer> status = CompletableFuture.supplyAsync(
          () -> Main.run(new String[] {"--serve-demo", "127.0.0.1:0"}, o, e, serve::set));
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!out.toString(StandardCharsets.UTF_8).contains("kvrelay: serving us-west on 127.0.0.1:")) {
        assertThat(status).as("still serving; stderr %s", err).isNotDone();
        assertThat(System.nanoTime()).as("serving line within 30 s; stderr %s", err).isLessThan(until);
        Thread.sleep(10);
      }
      return new Serving(out, err, serve, status);
    }
  }
}
