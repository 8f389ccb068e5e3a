package dev.kvrelay.engine.membership;

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
import org.junit.jupiter.api.Test;

/**
 * Project rule: the first Javadoc sentence of every type in this package states its threading contract
 * (same check as kvrelay-ckf's {@code ThreadingContractJavadocTest}, which does not cover the engine).
 */
class MembershipThreadingContractJavadocTest {
  private static final Pattern DECLARATION = Pattern.compile(
      "^[ \\t]*(?:(?:public|protected|private|static|final|sealed|non-sealed|abstract)\\s+)*"
          + "(?:class|interface|enum|record)\\s+(\\w+)",
      Pattern.MULTILINE);
  private static final Pattern DOC_BEFORE = Pattern.compile(
      "/\\*\\*((?:(?!\\*/).)*)\\*/\\s*(?:@[\\w.]+(?:\\([^)]*\\))?\\s*)*$", Pattern.DOTALL);
  private static final Pattern CONTRACT = Pattern.compile("(?i)thread-safe|thread safe|immutable|confined");

  @Test
  void firstJavadocSentenceOfEveryTypeStatesItsThreadingContract() throws IOException {
    Path dir = Path.of("src/main/java/dev/kvrelay/engine/membership");
    List<String> bad = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".java") && !p.endsWith("package-info.java")).sorted().toList();
    }
    assertThat(files).isNotEmpty();
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
    assertThat(bad).isEmpty();
  }

  private static String firstSentence(String doc) {
    String text = doc.replaceAll("(?m)^\\s*\\*\\s?", " ").replaceAll("\\s+", " ").trim();
    Matcher end = Pattern.compile("\\.(\\s|$)").matcher(text);
    return end.find() ? text.substring(0, end.start() + 1) : text;
  }
}
