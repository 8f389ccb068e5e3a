package dev.kvrelay.launcher.system;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Immutable after {@link #parse}: a strict reader of the Prometheus text exposition format 0.0.4 for tests. Every
 * line must be a {@code # HELP}, a {@code # TYPE} or a sample of a family declared by a preceding {@code # TYPE};
 * anything else fails the parse.
 */
final class PrometheusText {
  private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern TYPE = Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|summary|histogram|untyped|info|stateset|unknown)");
  private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") .*");
  private static final Pattern SAMPLE = Pattern.compile("(" + NAME + ")(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"(,|$)");

  /** Family name to type. */
  final Map<String, String> types = new LinkedHashMap<>();
  /** Sample name to its label sets (sorted) and values. */
  final Map<String, Map<Map<String, String>, Double>> samples = new LinkedHashMap<>();

  private PrometheusText() {}

  static PrometheusText parse(String body) {
    PrometheusText t = new PrometheusText();
    String family = null;
    int n = 0;
    for (String line : body.split("\n", -1)) {
      n++;
      if (line.isEmpty()) {
        continue;
      }
      Matcher m;
      if ((m = TYPE.matcher(line)).matches()) {
        family = m.group(1);
        if (t.types.put(family, m.group(2)) != null) {
          throw new AssertionError("line " + n + ": family declared twice: " + line);
        }
        continue;
      }
      if (HELP.matcher(line).matches()) {
        continue;
      }
      if (!(m = SAMPLE.matcher(line)).matches()) {
        throw new AssertionError("line " + n + " is not Prometheus text: " + line);
      }
      String name = m.group(1);
      if (family == null || !(name.equals(family) || name.startsWith(family + "_"))) {
        throw new AssertionError("line " + n + ": sample outside its family " + family + ": " + line);
      }
      Map<String, String> labels = new TreeMap<>();
      String raw = m.group(2);
      if (raw != null && !raw.isEmpty()) {
        Matcher l = LABEL.matcher(raw);
        int at = 0;
        while (at < raw.length()) {
          if (!l.find(at) || l.start() != at) {
            throw new AssertionError("line " + n + ": bad labels: " + raw);
          }
          if (labels.put(l.group(1), l.group(2)) != null) {
            throw new AssertionError("line " + n + ": label repeated: " + raw);
          }
          at = l.end();
        }
      }
      double value = switch (m.group(3)) {
        case "+Inf" -> Double.POSITIVE_INFINITY;
        case "-Inf" -> Double.NEGATIVE_INFINITY;
        case "NaN" -> Double.NaN;
        default -> Double.parseDouble(m.group(3));
      };
      if (t.samples.computeIfAbsent(name, k -> new LinkedHashMap<>()).put(labels, value) != null) {
        throw new AssertionError("line " + n + ": duplicate series: " + line);
      }
    }
    return t;
  }

  /** The value of {@code name} with exactly {@code labels} (pairs), or an assertion error naming what exists. */
  double value(String name, String... labels) {
    Map<String, String> want = new TreeMap<>();
    for (int i = 0; i < labels.length; i += 2) {
      want.put(labels[i], labels[i + 1]);
    }
    Map<Map<String, String>, Double> series = samples.get(name);
    if (series == null || !series.containsKey(want)) {
      throw new AssertionError("no series " + name + want + "; have " + (series == null ? "none" : series.keySet()));
    }
    return series.get(want);
  }
}
