package dev.kvrelay.launcher.system;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvrelay.engine.RelayEngine;
import dev.kvrelay.engine.RelayEngineConfig;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import dev.kvrelay.engine.wire.PoolFrame;
import dev.kvrelay.engine.wire.RelayStream;
import dev.kvrelay.engine.wire.WireSources;
import dev.kvrelay.launcher.SystemTestWorkers;
import dev.kvrelay.launcher.health.WanStatus;
import dev.kvrelay.spi.discovery.InMemoryDiscovery;
import dev.kvrelay.spi.eventplane.InMemoryEventPlane;
import dev.kvrelay.spi.eventplane.InMemoryRequestPlane;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /status} in a real browser: Debian's {@code chromium} headless, run as a child process against a running
 * engine whose simulated worker keeps caching; the rendered DOM is checked and a screenshot saved to
 * {@code target/status.png}. Under {@code CI=true} a missing chromium fails the test, elsewhere it is skipped.
 */
class StatusPageBrowserTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final long DEADLINE_MS = 90_000;
  private static final String ENDPOINT = "ns.backend.generate";
  private static final Pattern POOL_ROW = Pattern.compile(
      "<tr class=\"pool\" data-endpoint=\"" + Pattern.quote(ENDPOINT) + "\">(.*?)</tr>", Pattern.DOTALL);
  private static final Pattern SEQUENCE = Pattern.compile("<td class=\"sequence\">(\\d+)</td>");
  private static final Pattern LAGGING_ROW = Pattern.compile("<tr class=\"subscriber\" data-pool=\""
      + Pattern.quote(ENDPOINT) + "\" data-subscriber=\"browser-lagging\">(.*?)</tr>", Pattern.DOTALL);
  private static final Pattern LAG = Pattern.compile("<td class=\"lag( bad)?\">(\\d+)</td>");

  private final InMemoryDiscovery discovery = new InMemoryDiscovery();
  private final InMemoryEventPlane plane = InMemoryEventPlane.create();
  private final InMemoryRequestPlane requests = new InMemoryRequestPlane();
  private final List<AutoCloseable> closing = new ArrayList<>();
  private RelayEngine engine;
  private SystemServer server;
  private Thread feeder;
  private volatile boolean feeding = true;
  @TempDir Path profile;

  @BeforeEach
  void start() throws Exception {
    if (!Files.isExecutable(CHROMIUM)) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("CI=true but " + CHROMIUM + " is missing (apt-get install chromium)");
      }
      assumeTrue(false, "chromium not installed; test skipped");
    }
    // a deep subscriber queue: the unread stream stays open (behind) for the whole test instead of ending lagged
    RelayEngineConfig config = RelayEngineConfig.builder().dcId("dc-browser").watchAll(true)
        .expectedUniqueBlocks(4096).bind("127.0.0.1:5561").publicationQueueCapacity(100_000).build();
    engine = RelayEngine.builder().config(config).discovery(discovery).eventPlane(plane).requestPlane(requests)
        .poolThreads(2).build();
    server = SystemServer.start(SystemServerSettings.fromEnvironment(
        Map.of("DYN_SYSTEM_PORT", "0", "DYN_SYSTEM_HOST", "127.0.0.1")), engine,
        RelayProcessInfo.discovery(Map.of(), () -> WanStatus.DISABLED));
  }

  @AfterEach
  void stop() throws Exception {
    feeding = false;
    if (feeder != null) {
      feeder.join(10_000);
    }
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    if (server != null) {
      server.close();
    }
    if (engine != null) {
      engine.close();
    }
    requests.close();
    plane.close();
    discovery.close();
  }

  /**
   * Starts the worker and one thread that owns it: caches a new 2-block prompt every 50 ms and drains one pool
   * stream ({@code browser-sub}); a second stream ({@code browser-lagging}) is never read, so it falls behind.
   */
  private void startFeeding() throws Exception {
    SystemTestWorkers.Worker worker = SystemTestWorkers.start("ns/backend/generate", 7, "llama", discovery, plane,
        requests);
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    while (engine.catalog().pools().isEmpty()) {
      assertThat(System.nanoTime()).as("pool in catalog in time").isLessThan(deadline);
      Thread.sleep(10);
    }
    KvPoolDescriptor pool = engine.catalog().pools().get(0);
    RelayStream<PoolFrame> stream = WireSources.of(engine).subscribePool(pool.poolId(), pool.producer(), "browser-sub")
        .get(DEADLINE_MS, TimeUnit.MILLISECONDS);
    closing.add(stream);
    closing.add(WireSources.of(engine).subscribePool(pool.poolId(), pool.producer(), "browser-lagging")
        .get(DEADLINE_MS, TimeUnit.MILLISECONDS));
    feeder = new Thread(() -> {
      int base = 0;
      try {
        while (feeding) {
          int[] tokens = new int[SystemTestWorkers.BLOCK_SIZE * 2];
          for (int i = 0; i < tokens.length; i++) {
            tokens[i] = 100_000 + base + i;
          }
          base += tokens.length;
          worker.cache(tokens);
          while (stream.poll() != null) {
            // drained: the subscriber keeps up
          }
          Thread.sleep(50);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, "status-browser-feeder");
    feeder.setDaemon(true);
    feeder.start();
  }

  /** Runs chromium headless with {@code args} then the URL; returns its stdout. */
  private String chromium(List<String> args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
        "--user-data-dir=" + profile, "--no-first-run"));
    cmd.addAll(args);
    cmd.add("http://127.0.0.1:" + server.port() + SystemServer.STATUS_PATH);
    Path out = Files.createTempFile(profile.getParent(), "chromium", ".out");
    Path err = Files.createTempFile(profile.getParent(), "chromium", ".err");
    Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try {
      if (!p.waitFor(DEADLINE_MS, TimeUnit.MILLISECONDS)) {
        fail("chromium did not finish in time: " + cmd);
      }
      assertThat(p.exitValue()).as("chromium exit; stderr: %s", read(err)).isZero();
      return read(out);
    } finally {
      p.destroyForcibly();
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }

  /** The sequence the pool row shows in {@code dom}, asserting the row and the readiness entry are there. */
  private static long shownSequence(String dom) {
    Matcher row = POOL_ROW.matcher(dom);
    assertThat(row.find()).as("pool row for %s in the DOM:%n%s", ENDPOINT, dom).isTrue();
    assertThat(row.group(1)).contains("<td class=\"endpoint t\">" + ENDPOINT + "</td>");
    Matcher seq = SEQUENCE.matcher(row.group(1));
    assertThat(seq.find()).as("sequence cell in %s", row.group(1)).isTrue();
    assertThat(dom).contains("<tr class=\"readiness\" data-model=\"llama\">")
        .contains("<td class=\"model t\">llama</td>");
    return Long.parseUnsignedLong(seq.group(1));
  }

  /** The lag the {@code browser-lagging} subscriber row shows in {@code dom}, asserting both subscriber rows. */
  private static long shownLag(String dom) {
    assertThat(dom).contains("<tr class=\"subscriber\" data-pool=\"" + ENDPOINT + "\" data-subscriber=\"browser-sub\">");
    Matcher row = LAGGING_ROW.matcher(dom);
    assertThat(row.find()).as("browser-lagging subscriber row in the DOM:%n%s", dom).isTrue();
    Matcher lag = LAG.matcher(row.group(1));
    assertThat(lag.find()).as("lag cell in %s", row.group(1)).isTrue();
    return Long.parseLong(lag.group(2));
  }

  @Test
  void chromiumRendersThePoolAndReadinessAndTheSequenceMoves() throws Exception {
    startFeeding();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(DEADLINE_MS);
    String dom = chromium(List.of("--dump-dom"));
    // The worker has one rank and sends no kv_metrics report: the latest load window shows it uncovered.
    String coverage = "<tr class=\"pool-load\" data-endpoint=\"" + ENDPOINT + "\"><td class=\"endpoint t\">" + ENDPOINT
        + "</td><td class=\"coverage t bad\">DEGRADED</td><td class=\"ranks\">0 / 1</td>";
    while (!POOL_ROW.matcher(dom).find() || !dom.contains("data-model=\"llama\"") || !dom.contains(coverage)) {
      assertThat(System.nanoTime()).as("pool row, readiness and load coverage rendered in time:%n%s", dom)
          .isLessThan(deadline);
      dom = chromium(List.of("--dump-dom"));
    }
    assertThat(dom).contains("<h1>kvrelay DC relay <span class=\"dc-name\">dc-browser</span>");
    assertThat(dom).contains("<h2>Pool subscribers</h2>", "<h2>Load windows</h2>", "<h2>Sources and recovery</h2>",
        "<h2>Plugin connections</h2>", "<h2>Recent errors</h2>", "<h3>Pool load window</h3>",
        "<span class=\"load-window-sequence\">");
    long first = shownSequence(dom);
    long firstLag = shownLag(dom);
    long second = first;
    long secondLag = firstLag;
    while (second == first || secondLag == 0) {
      assertThat(System.nanoTime()).as("sequence %s changed and a lag shown in time", first).isLessThan(deadline);
      String next = chromium(List.of("--dump-dom"));
      second = shownSequence(next);
      secondLag = shownLag(next);
    }
    assertThat(Long.compareUnsigned(second, first)).as("sequence %s then %s", first, second).isPositive();
    assertThat(secondLag).as("the unread subscriber's lag").isPositive();

    Path png = Path.of("target", "status.png").toAbsolutePath();
    Files.createDirectories(png.getParent());
    Files.deleteIfExists(png);
    chromium(List.of("--screenshot=" + png, "--window-size=1200,800", "--hide-scrollbars"));
    assertThat(png).exists();
    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image).as("PNG decodes").isNotNull();
    assertThat(image.getWidth()).isEqualTo(1200);
    assertThat(image.getHeight()).isEqualTo(800);
    Set<Integer> colours = new HashSet<>();
    for (int y = 0; y < image.getHeight(); y += 4) {
      for (int x = 0; x < image.getWidth(); x += 4) {
        colours.add(image.getRGB(x, y));
      }
    }
    assertThat(colours).as("distinct colours in the screenshot").hasSizeGreaterThan(1);
  }
}
