package dev.kvrelay.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code kvrelay-grpc/CONFORMANCE.md} from rotting: every behaviour C1–C46 of wan-grpc.md §9 has exactly one
 * row, a row without tests says "not covered", and every {@code Class#method} it names is a test method declared in
 * a test source of this repository.
 */
class ConformanceIndexTest {
  private static final int BEHAVIOURS = 46;
  private static final Pattern ROW = Pattern.compile("^\\| C(\\d+) \\|(.*)$");
  private static final Pattern REFERENCE = Pattern.compile("`([A-Z][A-Za-z0-9_]*)#([A-Za-z_][A-Za-z0-9_]*)`");
  private static final Pattern TEST_ANNOTATION =
      Pattern.compile("@(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\\b");

  private static Map<Integer, String> rows;
  private static Map<String, List<String>> testSources;

  @BeforeAll
  static void load() throws IOException {
    Path module = moduleDir();
    rows = parseRows(Files.readString(module.resolve("CONFORMANCE.md"), StandardCharsets.UTF_8));
    testSources = testSources(module.getParent());
  }

  @Test
  void everyBehaviourC1ToC46HasExactlyOneRowInOrder() throws IOException {
    List<Integer> numbers = new ArrayList<>();
    for (String line : Files.readAllLines(moduleDir().resolve("CONFORMANCE.md"), StandardCharsets.UTF_8)) {
      Matcher m = ROW.matcher(line);
      if (m.matches()) {
        numbers.add(Integer.parseInt(m.group(1)));
      }
    }
    List<Integer> expected = new ArrayList<>();
    for (int i = 1; i <= BEHAVIOURS; i++) {
      expected.add(i);
    }
    assertThat(numbers).isEqualTo(expected);
  }

  @Test
  void aRowWithoutTestsIsMarkedNotCoveredAndACoveredRowNamesTests() {
    rows.forEach((number, row) -> {
      List<String> refs = references(row);
      String status = status(row);
      if (refs.isEmpty()) {
        assertThat(status).as("C%s names no test", number).startsWith("not covered");
      } else {
        assertThat(status).as("C%s status", number).matches("(covered( — .+)?|partial — .+)");
      }
    });
  }

  @Test
  void everyReferencedTestMethodExistsInTheTestSources() {
    List<String> missing = new ArrayList<>();
    int count = 0;
    for (Map.Entry<Integer, String> row : rows.entrySet()) {
      for (String ref : references(row.getValue())) {
        count++;
        if (!exists(ref)) {
          missing.add("C" + row.getKey() + ": " + ref);
        }
      }
    }
    assertThat(count).as("references in the index").isGreaterThan(BEHAVIOURS);
    assertThat(missing).as("references to test methods that do not exist").isEmpty();
  }

  @Test
  void theResolverRejectsMissingClassesMethodsAndNonTestMethods() {
    assertThat(exists("KvEventRelayConformanceTest#c01_getRelayInfoReturnsProtocolVersion1AndTheMarker")).isTrue();
    assertThat(exists("KvEventRelayConformanceTest#c99_noSuchBehaviour")).isFalse();
    assertThat(exists("NoSuchConformanceTest#c01_getRelayInfoReturnsProtocolVersion1AndTheMarker")).isFalse();
    // a helper method, not a test
    assertThat(exists("KvEventRelayConformanceTest#catalogProducer")).isFalse();
    assertThat(references("| C1 | x | `A#b`, `Cde#f_g1` | covered")).containsExactly("A#b", "Cde#f_g1");
  }

  // ---------------------------------------------------------------------------------------------- helpers

  private static Path moduleDir() {
    Path here = Path.of("").toAbsolutePath();
    return Files.exists(here.resolve("CONFORMANCE.md")) ? here : here.resolve("kvrelay-grpc");
  }

  private static Map<Integer, String> parseRows(String markdown) {
    Map<Integer, String> out = new HashMap<>();
    for (String line : markdown.split("\n")) {
      Matcher m = ROW.matcher(line);
      if (m.matches()) {
        out.put(Integer.parseInt(m.group(1)), line);
      }
    }
    return out;
  }

  private static List<String> references(String row) {
    List<String> out = new ArrayList<>();
    Matcher m = REFERENCE.matcher(row);
    while (m.find()) {
      out.add(m.group(1) + "#" + m.group(2));
    }
    return out;
  }

  /** The last table cell of a row, trimmed. */
  private static String status(String row) {
    String trimmed = row.strip();
    String body = trimmed.substring(0, trimmed.length() - 1);
    return body.substring(body.lastIndexOf('|') + 1).strip();
  }

  /** Simple class name → the sources of every test file with that name under any {@code src/test/java}. */
  private static Map<String, List<String>> testSources(Path root) throws IOException {
    Map<String, List<String>> out = new HashMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      files.filter(p -> p.toString().endsWith(".java"))
          .filter(p -> p.toString().replace('\\', '/').contains("/src/test/java/"))
          .filter(p -> !p.toString().replace('\\', '/').contains("/target/"))
          .forEach(p -> {
            String name = p.getFileName().toString();
            try {
              out.computeIfAbsent(name.substring(0, name.length() - 5), k -> new ArrayList<>())
                  .add(Files.readString(p, StandardCharsets.UTF_8));
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    }
    return out;
  }

  /** True if some test source of that class declares {@code void method(} annotated as a JUnit test. */
  private static boolean exists(String ref) {
    int hash = ref.indexOf('#');
    String cls = ref.substring(0, hash);
    Pattern declaration = Pattern.compile("\\bvoid\\s+" + Pattern.quote(ref.substring(hash + 1)) + "\\s*\\(");
    for (String source : testSources.getOrDefault(cls, List.of())) {
      Matcher m = declaration.matcher(source);
      while (m.find()) {
        int previousMember = Math.max(source.lastIndexOf(';', m.start()), source.lastIndexOf('}', m.start()));
        if (TEST_ANNOTATION.matcher(source.substring(Math.max(0, previousMember), m.start())).find()) {
          return true;
        }
      }
    }
    return false;
  }
}
