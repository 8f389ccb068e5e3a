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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The {@code demo} subcommand in process: argument errors, the serving run, its stop and its failure paths. */
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
      status = Main.run(args, Map.of(), o, e, new StopRequest(), PluginRegistries.load());
    }
    return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void demoWithoutABindValueIsAUsageError() {
    Run r = run("demo", "--bind");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).startsWith("kvrelay: Missing required parameter for option '--bind'");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void badBindAddressesExit2WithTheUpstreamMessage() {
    for (String bad : new String[] {"localhost:5561", "127.0.0.1", "127.0.0.1:65536", "[::1%eth0]:5561",
        "01.2.3.4:5561", "::1:5561"}) {
      Run r = run("demo", "--bind", bad);
      assertThat(r.status()).as("status for %s", bad).isEqualTo(2);
      assertThat(r.err()).as("error for %s", bad).startsWith("kvrelay: invalid KV DC Relay bind address"
          + System.lineSeparator());
    }
  }

  @Test
  void theOldServeDemoFlagIsGone() {
    Run r = run("--serve-demo", "127.0.0.1:0");
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).startsWith("kvrelay: Unknown options: '--serve-demo', '127.0.0.1:0'");
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
    assertThat(run.status()).as("serves until asked to stop").isNotDone();
    assertThat(run.out().toString(StandardCharsets.UTF_8))
        .contains("kvrelay: pool dynamo.backend.generate (model meta-llama/Llama-3.1-8B-Instruct, 2 workers x 2 ranks")
        .contains("kvrelay: look: gRPC dynamo.kvrelay.v1.KvEventRelay on 127.0.0.1:");

    run.stop().request("test");

    assertThat(run.status().get(10, TimeUnit.SECONDS)).as("stderr %s", run.err()).isZero();
    assertThat(run.out().toString(StandardCharsets.UTF_8)).matches(
        "(?s)kvrelay: serving us-west on 127\\.0\\.0\\.1:[1-9][0-9]*\\R.*kvrelay: demo traffic: \\d+ blocks stored,"
            + " \\d+ removed\\Rkvrelay: stopped\\R");
    assertThat(run.err().toString(StandardCharsets.UTF_8)).contains("kvrelay: stopping on test");
  }

  @Test
  void theDemoTrafficKeepsCachingAndEvicting() throws Exception {
    Serving run = Serving.start();
    DemoTraffic traffic = new DemoTraffic(run.serve().get().workers());
    // Steps on this thread (the demo's own traffic runs too; the workers are thread-safe): both kinds happen.
    for (int i = 0; i < 200 && (traffic.storedBlocks() == 0 || traffic.removedBlocks() == 0); i++) {
      traffic.step();
    }
    assertThat(traffic.storedBlocks()).as("blocks stored").isPositive();
    assertThat(traffic.removedBlocks()).as("blocks removed").isPositive();
    run.stop().request("test");
    assertThat(run.status().get(10, TimeUnit.SECONDS)).isZero();
  }

  @Test
  void anEngineThatEndsOnItsOwnExits1WithTheErrorPrinted() throws Exception {
    Serving run = Serving.start();
    RelayEngine engine = run.serve().get().engine();
    assertThat(engine).isNotNull();

    EngineFaults.failHost(engine, new IllegalStateException("load window publisher failed"));

    assertThat(run.status().get(10, TimeUnit.SECONDS)).as("stderr %s", run.err()).isEqualTo(1);
    assertThat(run.err().toString(StandardCharsets.UTF_8))
        .contains("kvrelay: the relay ended on its own: ")
        .contains("load window publisher failed");
    assertThat(run.out().toString(StandardCharsets.UTF_8)).as("no orderly-stop line").doesNotContain("kvrelay: stopped");
  }

  @Test
  void anAddressThatCannotBeBoundExits1() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      Run r = run("demo", "--bind", "127.0.0.1:" + taken.getLocalPort());
      assertThat(r.status()).isEqualTo(1);
      assertThat(r.err()).startsWith("kvrelay: cannot serve on 127.0.0.1:" + taken.getLocalPort() + ": ");
      assertThat(r.out()).isEmpty();
    }
  }

  /** A {@code demo --bind 127.0.0.1:0} run in the background, once its serving lines were printed. */
  @Test
  void theDemoHonoursDynSystemPortAndItsStatusPageShowsThePool() throws Exception {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    StopRequest stop = new StopRequest();
    CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> Main.run(
        new String[] {"demo", "--bind", "127.0.0.1:0"}, Map.of("DYN_SYSTEM_PORT", "0", "DYN_SYSTEM_HOST", "127.0.0.1"),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8), stop,
        PluginRegistries.load()));
    java.util.regex.Pattern line = java.util.regex.Pattern.compile("kvrelay: system server on 127\\.0\\.0\\.1:(\\d+) ");
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    java.util.regex.Matcher m;
    while (!(m = line.matcher(out.toString(StandardCharsets.UTF_8))).find()) {
      assertThat(status).as("still serving; stderr %s", err).isNotDone();
      assertThat(System.nanoTime()).as("system server line within 30 s; stderr %s", err).isLessThan(until);
      Thread.sleep(10); // polling interval of a condition with a deadline
    }
    java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
    java.net.http.HttpResponse<String> page = http.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create("http://127.0.0.1:" + m.group(1) + "/status.json")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("dynamo.backend.generate");
    java.net.http.HttpResponse<String> health = http.send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create("http://127.0.0.1:" + m.group(1) + "/health")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    stop.request("test");
    assertThat(status.get(30, TimeUnit.SECONDS)).as("stderr %s", err).isZero();
  }

  private record Serving(ByteArrayOutputStream out, ByteArrayOutputStream err, AtomicReference<ServeDemo> serve,
      StopRequest stop, CompletableFuture<Integer> status) {
    static Serving start() throws InterruptedException {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      AtomicReference<ServeDemo> serve = new AtomicReference<>();
      PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
      PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
      StopRequest stop = new StopRequest();
      CompletableFuture<Integer> status = CompletableFuture.supplyAsync(() -> Main.run(
          new String[] {"demo", "--bind", "127.0.0.1:0"}, Map.of(), o, e, stop, PluginRegistries.load(),
          new Main.Hooks(relay -> { }, serve::set)));
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!out.toString(StandardCharsets.UTF_8).contains("kvrelay: look: ")) {
        assertThat(status).as("still serving; stderr %s", err).isNotDone();
        assertThat(System.nanoTime()).as("serving lines within 30 s; stderr %s", err).isLessThan(until);
        Thread.sleep(10);
      }
      return new Serving(out, err, serve, stop, status);
    }
  }
}
