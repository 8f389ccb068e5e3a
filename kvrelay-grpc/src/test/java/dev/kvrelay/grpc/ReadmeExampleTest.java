package dev.kvrelay.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Not thread-safe: confined to the JUnit thread. The README's "Embedding" section runs as written: its two
 * {@code java} blocks are taken from the root README.md verbatim, compiled together with javax.tools into one
 * {@code main} whose free variables ({@code discovery}, {@code events}, {@code requests}, {@code domain},
 * {@code format}, {@code semantics}, {@code promptTokens}) come from {@code dev.kvrelay.engine.ReadmeWorld} (the
 * in-memory planes with one simulated worker), and run in a child JVM that must exit on its own: any
 * non-daemon thread left behind by the engine, the consumer, the server or the client keeps it alive and fails the
 * test with a thread dump.
 */
class ReadmeExampleTest {
  private static final long EXIT_BOUND_S = 90;
  private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

  @Test
  void theEmbeddingBlocksCompileRunAndTheirJvmExitsOnItsOwn(@TempDir Path dir) throws Exception {
    List<String> blocks = embeddingBlocks(readme());
    assertThat(blocks).as("java blocks in README.md ## Embedding").hasSize(2);
    String source = program(blocks);

    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    JavaFileObject unit = new SimpleJavaFileObject(
        java.net.URI.create("string:///ReadmeEmbedding.java"), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return source;
      }
    };
    boolean compiled = javac.getTask(diagnostics, null, null,
        List.of("-classpath", System.getProperty("java.class.path"), "-d", dir.toString(), "-proc:none",
            "--release", "17"), null, List.of(unit)).call();
    assertThat(compiled).as("README blocks compile:%n%s%n--- source ---%n%s", diagnostics, source).isTrue();

    Path out = dir.resolve("out.txt");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path") + File.pathSeparator + dir,
        "ReadmeEmbedding").redirectErrorStream(true).redirectOutput(out.toFile()).start();
    boolean exited = child.waitFor(EXIT_BOUND_S, TimeUnit.SECONDS);
    String dump = exited ? "" : threadDump(child.pid());
    if (!exited) {
      child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    String output = Files.readString(out, StandardCharsets.UTF_8);
    assertThat(exited).as("the README program's JVM exits on its own within %d s; output:%n%s%nthreads:%n%s",
        EXIT_BOUND_S, output, dump).isTrue();
    assertThat(child.exitValue()).as("exit status; output:%n%s", output).isZero();
    assertThat(output).as("the second block ran to its end").contains("README-EXAMPLE-DONE")
        .containsPattern("(?m)^(ANSWERED|UNAVAILABLE|NO_POOL_FOR_MODEL)$");
  }

  /** The README's java blocks, in order, between "## Embedding" and the next level-2 heading. */
  static List<String> embeddingBlocks(String readme) {
    int start = readme.indexOf("\n## Embedding\n");
    assertThat(start).as("README has an ## Embedding section").isNotNegative();
    int end = readme.indexOf("\n## ", start + 1);
    String section = readme.substring(start, end < 0 ? readme.length() : end);
    List<String> blocks = new ArrayList<>();
    Matcher m = JAVA_BLOCK.matcher(section);
    while (m.find()) {
      blocks.add(m.group(1));
    }
    return blocks;
  }

  private static String program(List<String> blocks) {
    StringBuilder b = new StringBuilder()
        .append("import dev.kvrelay.engine.*;\n")
        .append("import dev.kvrelay.engine.consumer.*;\n")
        .append("import dev.kvrelay.grpc.client.*;\n")
        .append("import dev.kvrelay.grpc.server.*;\n\n")
        .append("public final class ReadmeEmbedding {\n")
        .append("  public static void main(String[] args) throws Exception {\n")
        .append("    try (dev.kvrelay.engine.ReadmeWorld world = new dev.kvrelay.engine.ReadmeWorld()) {\n")
        .append("      var discovery = world.discovery;\n")
        .append("      var events = world.events;\n")
        .append("      var requests = world.requests;\n")
        .append("      var domain = world.domain;\n")
        .append("      var format = world.format;\n")
        .append("      var semantics = world.semantics;\n")
        .append("      int[] promptTokens = world.promptTokens;\n");
    for (String block : blocks) {
      b.append("      // ---- README block\n").append(block.indent(6));
    }
    return b.append("    }\n")
        .append("    System.out.println(\"README-EXAMPLE-DONE\");\n")
        .append("  }\n}\n").toString();
  }

  private static String readme() throws IOException {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      Path readme = d.resolve("README.md");
      if (Files.exists(readme) && Files.exists(d.resolve("kvrelay-grpc"))) {
        return Files.readString(readme, StandardCharsets.UTF_8);
      }
    }
    throw new IllegalStateException("the root README.md is not above " + Path.of("").toAbsolutePath());
  }

  private static String threadDump(long pid) {
    try {
      Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
      Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "Thread.print").redirectErrorStream(true)
          .start();
      String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(20, TimeUnit.SECONDS);
      return text;
    } catch (IOException | InterruptedException e) {
      return "(no thread dump: " + e + ")";
    }
  }
}
