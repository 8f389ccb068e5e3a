package dev.kvrelay.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The embedded demo run in process through {@link Main#run}: real relay engines for three DCs, a router reading
 * them, and the printed self-check compared with depths derived by hand from the demo's traffic script.
 */
@Timeout(60)
class EmbeddedDemoTest {

  /**
   * The exact depths (blocks) per DC, us-west / us-east / eu-central, worked out by hand from the traffic in
   * {@link EmbeddedDemo}'s class comment (S = 4 blocks, A = 4, B = 6, C = 2, X = 5, questions 3 each):
   * us-west holds S+A[0..2) (worker-1 evicted A's last two blocks) and S+B[0]; us-east holds S+B and S+C;
   * eu-central holds S and X. Also the full block count of each request.
   */
  private static final Map<String, int[]> HAND_DERIVED = new LinkedHashMap<>();

  static {
    // label -> {request blocks, us-west, us-east, eu-central}
    HAND_DERIVED.put("S+A + question", new int[] {11, 6, 4, 4});
    HAND_DERIVED.put("S+B + question", new int[] {13, 5, 10, 4});
    HAND_DERIVED.put("S+C + question + 7-token tail", new int[] {9, 4, 6, 4});
    HAND_DERIVED.put("S + question", new int[] {7, 4, 4, 4});
    HAND_DERIVED.put("X + follow-up", new int[] {8, 0, 0, 5});
    HAND_DERIVED.put("unrelated prompt", new int[] {6, 0, 0, 0});
  }

  private static final Pattern CELL = Pattern.compile("(\\d+) / (\\d+) \\[(\\d+)\\]( !!)?");

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
  void demoExitsZeroAndEveryPrintedDepthEqualsTheHandDerivedDepth() {
    Run r = run("demo", "--self-check");

    assertThat(r.status()).as("exit status; stdout:%n%s%nstderr:%n%s", r.out(), r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    for (Map.Entry<String, int[]> e : HAND_DERIVED.entrySet()) {
      String label = e.getKey();
      int[] want = e.getValue();
      String line = lines.stream().filter(l -> l.startsWith("  " + label + "  ")).findFirst()
          .orElseThrow(() -> new AssertionError("no table line for " + label + " in:\n" + r.out()));
      String afterLabel = line.substring(2 + label.length()).trim();
      assertThat(Integer.parseInt(afterLabel.substring(0, afterLabel.indexOf(' '))))
          .as("full blocks of %s", label).isEqualTo(want[0]);
      Matcher m = CELL.matcher(line);
      List<int[]> cells = new ArrayList<>();
      while (m.find()) {
        assertThat(m.group(4)).as("mismatch marker in %s", line).isNull();
        cells.add(new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))});
      }
      assertThat(cells).as("one cell per DC in %s", line).hasSize(3);
      for (int dc = 0; dc < 3; dc++) {
        int depth = want[dc + 1];
        assertThat(cells.get(dc)[0]).as("answered depth of %s in %s", label, EmbeddedDemo.DATA_CENTERS.get(dc))
            .isEqualTo(depth);
        assertThat(cells.get(dc)[1]).as("matched tokens = depth x 16 for %s", label).isEqualTo(depth * 16);
        assertThat(cells.get(dc)[2]).as("expected depth the demo derived for %s", label).isEqualTo(depth);
      }
    }
    assertThat(r.out()).contains("OK: 18 of 18 answers equal the expected depth");
    for (String dc : EmbeddedDemo.DATA_CENTERS) {
      assertThat(r.out()).contains("catalog of " + dc + " (dc_id ")
          .contains("readiness of " + dc)
          .containsPattern("router replica " + dc + " +lane \\d LIVE");
    }
    assertThat(r.out()).contains("registration meta-llama/Llama-3.1-8B-Instruct -> ")
        .contains("aliases [llama-3.1-8b]")
        .contains("roles        [AGGREGATED]")
        .contains("dynamo / meta-llama/Llama-3.1-8B-Instruct: READY");
  }

  @Test
  void demoStopsEveryThreadItStarted() throws InterruptedException {
    Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());

    Run r = run("demo", "--self-check");

    assertThat(r.status()).as("exit status; stderr:%n%s", r.err()).isZero();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    List<String> stray;
    do {
      stray = new ArrayList<>();
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.isAlive() && !before.contains(t) && !t.getName().startsWith("ForkJoinPool.commonPool")) {
          stray.add(t.getName() + (t.isDaemon() ? " (daemon)" : ""));
        }
      }
      if (!stray.isEmpty()) {
        Thread.sleep(20);
      }
    } while (!stray.isEmpty() && System.nanoTime() < deadline);
    assertThat(stray).as("threads started by the demo still alive after it returned").isEmpty();
  }

  @Test
  void helpPrintsTheRelayUsageWithTheDemoSubcommand() {
    Run r = run("--help");

    assertThat(r.status()).isZero();
    assertThat(r.out()).contains("Dynamo DC-scoped KV Relay", "--dc-id", "--log-level", "demo");
    assertThat(r.out()).doesNotContain("prefix matches");
    Run demo = run("demo", "--help");
    assertThat(demo.status()).isZero();
    assertThat(demo.out()).contains("--bind", "--self-check", "127.0.0.1:5561");
  }

  @Test
  void noArgumentsWithoutDynDcIdIsAnArgumentErrorAndNeverTheDemo() {
    Run r = run();

    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).startsWith("kvrelay: --dc-id or DYN_DC_ID is required" + System.lineSeparator());
    assertThat(r.out()).isEmpty();
  }

  @Test
  void selfCheckFailsWhenAnyAnswerDiffersIsMissingOrNothingWasChecked() {
    PrefixCheck exact = new PrefixCheck("r", "us-west", 8, 3, 3, 48);
    PrefixCheck tooDeep = new PrefixCheck("r", "us-east", 8, 3, 4, 64); // a fingerprint false positive
    PrefixCheck tooShallow = new PrefixCheck("r", "eu-central", 8, 3, 2, 32);
    PrefixCheck noAnswer = new PrefixCheck("r", "eu-central", 8, 0, PrefixCheck.NO_ANSWER, 0);

    assertThat(new DemoOutcome(List.of(exact), 1).exitStatus()).isZero();
    assertThat(new DemoOutcome(List.of(exact, tooDeep), 1).exitStatus()).isEqualTo(1);
    assertThat(new DemoOutcome(List.of(tooShallow, exact), 1).exitStatus()).isEqualTo(1);
    assertThat(new DemoOutcome(List.of(exact, noAnswer), 1).exitStatus())
        .as("no answer is not depth 0").isEqualTo(1);
    assertThat(new DemoOutcome(List.of(), 1).exitStatus()).as("a vacuous run fails").isEqualTo(1);
  }
}
