package dev.kvrelay.ckf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Project rule: the first Javadoc sentence of every type more than one thread can touch states its
 * threading contract ("Immutable and thread-safe: …", "Not thread-safe: confined to …"). Checks every type
 * declared in the main sources of every package of {@code kvrelay-ckf} and of the sibling modules
 * {@code kvrelay-api} and the SPIs (read from the source tree, so one test serves every module).
 */
class ThreadingContractJavadocTest {
  /** A type declaration at the start of a line (so never inside a Javadoc line, which starts with '*'). */
  private static final Pattern DECLARATION = Pattern.compile(
      "^[ \\t]*(?:(?:public|protected|private|static|final|sealed|non-sealed|abstract)\\s+)*"
          + "(?:class|interface|enum|record)\\s+(\\w+)",
      Pattern.MULTILINE);
  /**
   * The Javadoc comment right before a declaration, annotations allowed in between (each may end with a
   * {@code //} comment, the reason a suppression gives).
   */
  private static final Pattern DOC_BEFORE = Pattern.compile(
      "/\\*\\*((?:(?!\\*/).)*)\\*/\\s*(?:@[\\w.]+(?:\\([^)]*\\))?[ \\t]*(?://[^\\n]*)?\\s*)*$",
      Pattern.DOTALL);
  private static final Pattern CONTRACT = Pattern.compile("(?i)thread-safe|thread safe|immutable|confined");

  static List<String> violations(Path dir) throws IOException {
    List<String> bad = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".java") && !p.endsWith("package-info.java")).sorted().toList();
    }
    assertThat(files).as("main sources under %s", dir.toAbsolutePath()).isNotEmpty();
    for (Path file : files) {
      String src = Files.readString(file, StandardCharsets.UTF_8);
      Matcher decl = DECLARATION.matcher(src);
      while (decl.find()) {
        Matcher doc = DOC_BEFORE.matcher(src.substring(0, decl.start()));
        String first = doc.find() ? firstSentence(doc.group(1)) : "(no Javadoc)";
        if (!CONTRACT.matcher(first).find()) {
          bad.add(file.getFileName() + " " + decl.group(1) + ": \"" + first + "\"");
        }
      }
    }
    return bad;
  }

  /** Javadoc's first sentence: up to the first period followed by white space. */
  static String firstSentence(String doc) {
    String text = doc.replaceAll("(?m)^\\s*\\*\\s?", " ").replaceAll("\\s+", " ").trim();
    Matcher end = Pattern.compile("\\.(\\s|$)").matcher(text);
    return end.find() ? text.substring(0, end.start() + 1) : text;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
    "src/main/java/dev/kvrelay/ckf",
    "src/main/java/dev/kvrelay/ckf/hashing",
    "src/main/java/dev/kvrelay/ckf/cbi1",
    "src/main/java/dev/kvrelay/ckf/producer",
    "src/main/java/dev/kvrelay/ckf/consumer",
    "../kvrelay-api/src/main/java/dev/kvrelay/api",
    "../kvrelay-api/src/main/java/dev/kvrelay/api/plugin",
    "../kvrelay-api/src/main/java/dev/kvrelay/api/json",
    "../kvrelay-spi-eventplane/src/main/java/dev/kvrelay/spi/eventplane",
    "../kvrelay-spi-eventplane/kvrelay-eventplane-nats/src/main/java/dev/kvrelay/eventplane/nats",
    "../kvrelay-spi-discovery/src/main/java/dev/kvrelay/spi/discovery",
    "../kvrelay-spi-discovery/src/main/java/dev/kvrelay/spi/discovery/sources",
    "../kvrelay-spi-discovery/kvrelay-discovery-kubernetes/src/main/java/dev/kvrelay/discovery/kubernetes",
    "../kvrelay-spi-eventplane/kvrelay-eventplane-zmq/src/main/java/dev/kvrelay/eventplane/zmq",
    "../kvrelay-spi-eventplane/kvrelay-requestplane-tcp/src/main/java/dev/kvrelay/requestplane/tcp",
    "../kvrelay-spi-discovery/kvrelay-discovery-etcd/src/main/java/dev/kvrelay/discovery/etcd",
    "../kvrelay-engine/src/main/java/dev/kvrelay/engine/membership",
    "../kvrelay-engine/src/main/java/dev/kvrelay/engine/topology",
    "../kvrelay-engine/src/main/java/dev/kvrelay/engine/load",
    "../kvrelay-engine/src/main/java/dev/kvrelay/engine",
    "../kvrelay-engine/src/main/java/dev/kvrelay/engine/catalog",
    "../kvrelay-engine/src/main/java/dev/kvrelay/engine/consumer",
    "../kvrelay-engine/src/main/java/dev/kvrelay/engine/wan",
    "../kvrelay-engine/src/main/java/dev/kvrelay/engine/stats",
    "../kvrelay-engine/src/main/java/dev/kvrelay/engine/actor",
    "../kvrelay-engine/src/main/java/dev/kvrelay/engine/stream",
    "../kvrelay-engine/src/main/java/dev/kvrelay/engine/hub",
    "../kvrelay-engine/src/main/java/dev/kvrelay/engine/recovery",
    "../kvrelay-grpc/src/main/java/dev/kvrelay/grpc/wire",
    "../kvrelay-grpc/src/main/java/dev/kvrelay/grpc/server",
    "../kvrelay-grpc/src/main/java/dev/kvrelay/grpc/client",
    "../kvrelay-launcher/src/main/java/dev/kvrelay/launcher",
    "../kvrelay-spi-discovery/kvrelay-discovery-file/src/main/java/dev/kvrelay/discovery/file",
    "../kvrelay-launcher/src/main/java/dev/kvrelay/launcher/cli",
    "../kvrelay-launcher/src/main/java/dev/kvrelay/launcher/inspect",
    "../kvrelay-launcher/src/main/java/dev/kvrelay/launcher/system",
    "../kvrelay-launcher/src/main/java/dev/kvrelay/launcher/diagnostics",
  })
  void firstJavadocSentenceOfEveryTypeStatesItsThreadingContract(String dir) throws IOException {
    assertThat(violations(Path.of(dir))).isEmpty();
  }
}
