package dev.kvrelay.engine.load;

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

/** Project rule: the first Javadoc sentence of every type of this package states its threading contract. */
class LoadThreadingContractJavadocTest {
  private static final Pattern DECLARATION = Pattern.compile(
      "^[ \\t]*(?:(?:public|protected|private|static|final|sealed|non-sealed|abstract)\\s+)*"
          + "(?:class|interface|enum|record)\\s+(\\w+)",
      Pattern.MULTILINE);
  private static final Pattern DOC_BEFORE = Pattern.compile(
      "/\\*\\*((?:(?!\\*/).)*)\\*/\\s*(?:@[\\w.]+(?:\\([^)]*\\))?\\s*)*$", Pattern.DOTALL);
  private static final Pattern CONTRACT = Pattern.compile("(?i)thread-safe|thread safe|immutable|confined");

  @Test
  void firstJavadocSentenceOfEveryTypeStatesItsThreadingContract() throws IOException {
    Path dir = Path.of("src/main/java/dev/kvrelay/engine/load");
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.toString().endsWith(".java") && !p.endsWith("package-info.java")).toList();
    }
    assertThat(files).hasSizeGreaterThan(5);
    List<String> bad = new ArrayList<>();
    for (Path file : files) {
      String src = Files.readString(file, StandardCharsets.UTF_8);
      Matcher decl = DECLARATION.matcher(src);
      while (decl.find()) {
        Matcher doc = DOC_BEFORE.matcher(src.substring(0, decl.start()));
        String text = doc.find() ? doc.group(1).replaceAll("(?m)^\\s*\\*\\s?", " ").replaceAll("\\s+", " ").trim()
            : "(no Javadoc)";
        Matcher end = Pattern.compile("\\.(\\s|$)").matcher(text);
        String first = end.find() ? text.substring(0, end.start() + 1) : text;
        if (!CONTRACT.matcher(first).find()) {
          bad.add(file.getFileName() + " " + decl.group(1) + ": \"" + first + "\"");
        }
      }
    }
    assertThat(bad).isEmpty();
  }
}
