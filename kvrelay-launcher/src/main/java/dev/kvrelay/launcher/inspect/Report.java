package dev.kvrelay.launcher.inspect;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Immutable (static helpers only, no state): how the inspect verbs print. A report is named rows, printed as one JSON
 * object (Jackson) or as a two-column table; a relay message as a table is one row per leaf field, named by its
 * proto field path with repeated entries indexed ({@code snapshot.pools[0].serving_endpoint.namespace}). Both tables
 * start with the header row {@value #FIELD} / {@value #VALUE}.
 */
final class Report {
  /** The first column's header. */
  static final String FIELD = "FIELD";
  /** The second column's header. */
  static final String VALUE = "VALUE";

  private Report() {}

  /** Prints {@code rows} as one JSON object or as a two-column table, per {@code c}'s {@code --output}. */
  static void print(ConnectionOptions c, List<Map.Entry<String, Object>> rows) throws IOException {
    PrintWriter out = c.out();
    if (c.output == ConnectionOptions.Output.json) {
      StringWriter w = new StringWriter();
      try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
        g.useDefaultPrettyPrinter();
        g.writeStartObject();
        for (Map.Entry<String, Object> e : rows) {
          g.writeFieldName(e.getKey());
          Object v = e.getValue();
          if (v instanceof Integer i) {
            g.writeNumber(i);
          } else if (v instanceof Long l) {
            g.writeNumber(l);
          } else if (v instanceof Double d) {
            g.writeNumber(d);
          } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
          } else {
            g.writeString(String.valueOf(v));
          }
        }
        g.writeEndObject();
      }
      out.println(w);
    } else {
      List<String[]> table = new ArrayList<>(rows.size());
      for (Map.Entry<String, Object> e : rows) {
        Object v = e.getValue();
        table.add(new String[] {e.getKey(), v instanceof Double d ? String.format(Locale.ROOT, "%.4f", d)
            : String.valueOf(v)});
      }
      out.println(table(table));
    }
    out.flush();
  }

  /** {@code m} as a table: the header, then one {@code field.path  value} row per set leaf field. */
  static String table(Message m) {
    List<String[]> rows = new ArrayList<>();
    walk("", m, rows);
    return table(rows);
  }

  private static String table(List<String[]> rows) {
    int width = FIELD.length();
    for (String[] r : rows) {
      width = Math.max(width, r[0].length());
    }
    String format = "%-" + width + "s  %s%n";
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT, format, FIELD, VALUE));
    for (String[] r : rows) {
      b.append(String.format(Locale.ROOT, format, r[0], r[1]));
    }
    return b.toString().stripTrailing();
  }

  private static void walk(String prefix, Message m, List<String[]> rows) {
    for (Map.Entry<FieldDescriptor, Object> e : m.getAllFields().entrySet()) {
      FieldDescriptor f = e.getKey();
      String name = prefix + f.getName();
      if (f.isRepeated()) {
        List<?> items = (List<?>) e.getValue();
        for (int i = 0; i < items.size(); i++) {
          one(name + "[" + i + "]", f, items.get(i), rows);
        }
      } else {
        one(name, f, e.getValue(), rows);
      }
    }
  }

  private static void one(String name, FieldDescriptor f, Object v, List<String[]> rows) {
    if (v instanceof Message sub) {
      walk(name + ".", sub, rows);
      return;
    }
    String text;
    if (v instanceof ByteString bs) {
      text = HexFormat.of().formatHex(bs.toByteArray());
    } else if (v instanceof Long l && (f.getType() == FieldDescriptor.Type.UINT64
        || f.getType() == FieldDescriptor.Type.FIXED64)) {
      text = Long.toUnsignedString(l);
    } else if (v instanceof Integer i && (f.getType() == FieldDescriptor.Type.UINT32
        || f.getType() == FieldDescriptor.Type.FIXED32)) {
      text = Integer.toUnsignedString(i);
    } else {
      text = String.valueOf(v);
    }
    rows.add(new String[] {name, text});
  }
}
