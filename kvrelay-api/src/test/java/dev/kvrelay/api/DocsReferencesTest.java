package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Project rule: every {@code §} reference in the repository resolves inside it. The project's reference documents
 * live in {@code docs/} ({@code ckf-cbi1.md}, {@code wan-grpc.md}, {@code producer.md}, {@code runtime-inputs.md},
 * {@code vectors.md}, {@code plugins-wire.md}); a reference that names its document ({@code wan-grpc §2.4},
 * {@code producer.md §7.1}) must name a numbered heading of that document, and a bare one ({@code §6.6}, written
 * after its document was named) must name a heading that exists in some document. Scans every source, proto,
 * script and Markdown file of every module (read from the source tree, so this one test covers the repository).
 */
class DocsReferencesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final List<String> DOCUMENTS =
      List.of("ckf-cbi1", "wan-grpc", "producer", "runtime-inputs", "vectors", "plugins-wire");
  private static final Pattern HEADING = Pattern.compile("^#{2,4} (\\d+(?:\\.\\d+)*)\\.? ", Pattern.MULTILINE);
  private static final Pattern REFERENCE = Pattern.compile(
      "(?:`?(" + String.join("|", DOCUMENTS) + ")(?:\\.md)?`?\\s+|(RFC\\s?\\d+\\s+))?§\\s?(\\d+(?:\\.\\d+)*)");

  static Map<String, Set<String>> sections() throws IOException {
    Map<String, Set<String>> sections = new HashMap<>();
    for (String doc : DOCUMENTS) {
      Path file = ROOT.resolve("docs").resolve(doc + ".md");
      assertThat(file).as("the project's own reference document").exists();
      Set<String> numbers = new HashSet<>();
      Matcher m = HEADING.matcher(Files.readString(file, StandardCharsets.UTF_8));
      while (m.find()) {
        numbers.add(m.group(1));
      }
      sections.put(doc, numbers);
    }
    return sections;
  }

  /** The unresolved references of {@code text} (one line each: the reference as written). */
  static List<String> unresolved(String text, Map<String, Set<String>> sections) {
    List<String> bad = new ArrayList<>();
    Matcher m = REFERENCE.matcher(text);
    while (m.find()) {
      if (m.group(2) != null) {
        continue; // another standard's section (RFC 8259 §13), not ours
      }
      String section = m.group(3);
      boolean resolves = m.group(1) != null
          ? sections.get(m.group(1)).contains(section)
          : sections.values().stream().anyMatch(s -> s.contains(section));
      if (!resolves) {
        bad.add(m.group(0));
      }
    }
    return bad;
  }

  @Test
  void everySectionReferenceInTheRepositoryNamesAHeadingOfDocs() throws IOException {
    Map<String, Set<String>> sections = sections();
    List<String> bad = new ArrayList<>();
    int[] references = {0};
    try (Stream<Path> files = Files.walk(ROOT)) {
      files.filter(Files::isRegularFile)
          .filter(p -> !ROOT.relativize(p).toString().contains("target/") && !ROOT.relativize(p).startsWith(".git"))
          .filter(p -> !p.getFileName().toString().equals("DocsReferencesTest.java")) // its refusal samples
          .filter(p -> {
            String n = p.getFileName().toString();
            return n.endsWith(".java") || n.endsWith(".proto") || n.endsWith(".py") || n.endsWith(".md");
          })
          .forEach(p -> {
            try {
              String text = Files.readString(p, StandardCharsets.UTF_8);
              references[0] += (int) text.chars().filter(c -> c == '§').count();
              for (String r : unresolved(text, sections)) {
                bad.add(ROOT.relativize(p) + ": " + r);
              }
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
          });
    }
    assertThat(references[0]).as("the scan found the code's references").isGreaterThan(300);
    assertThat(bad).as("references that do not resolve inside docs/").isEmpty();
  }

  @Test
  void theCheckerRefusesWhatDoesNotResolve() throws IOException {
    Map<String, Set<String>> sections = sections();
    assertThat(unresolved("see wan-grpc §2.4 and `producer.md` §7.1", sections)).isEmpty();
    assertThat(unresolved("see wan-grpc §99.1", sections)).containsExactly("wan-grpc §99.1");
    assertThat(unresolved("bare §42.7 nowhere", sections)).containsExactly("§42.7");
    assertThat(unresolved("vectors §6.6", sections)).as("a heading of another document").containsExactly("vectors §6.6");
    assertThat(unresolved("RFC 8259 §13", sections)).isEmpty();
  }
}
