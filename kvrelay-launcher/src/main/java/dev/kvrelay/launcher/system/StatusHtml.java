package dev.kvrelay.launcher.system;

import com.google.common.escape.Escaper;
import com.google.common.html.HtmlEscapers;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * Thread-safe (stateless): the {@code /status} page — server-rendered HTML with inline CSS, a 2 s meta refresh and
 * inline SVG sparklines; no script, no external resource. Every text taken from the report is HTML-escaped (Guava's
 * {@code HtmlEscapers}). Rows carry stable classes ({@code pool}, {@code readiness}) and cells stable classes
 * ({@code endpoint}, {@code sequence}, {@code model}, …) so tools and tests can read the DOM.
 */
final class StatusHtml {
  private static final Escaper ESCAPE = HtmlEscapers.htmlEscaper();
  /** The page's refresh period in seconds. */
  static final int REFRESH_SECONDS = 2;
  private static final String CSS = "body{font:14px system-ui,sans-serif;margin:16px;color:#222;background:#fafafa}"
      + "h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:18px 0 6px}"
      + "table{border-collapse:collapse;background:#fff}th,td{border:1px solid #ccc;padding:3px 7px;"
      + "text-align:right;vertical-align:top}th{background:#e8eef5}td.t{text-align:left}"
      + ".ok{color:#176b2c;font-weight:600}.bad{color:#b00020;font-weight:600}"
      + ".bar{display:inline-block;width:60px;height:8px;background:#ddd;margin-left:4px}"
      + ".bar i{display:block;height:8px;background:#3b7dd8}svg{background:#f3f6fa}"
      + "dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:0}dt{color:#555}"
      + "small{color:#666}";

  private StatusHtml() {}

  static byte[] render(StatusReport r) {
    StringBuilder h = new StringBuilder(8192);
    h.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta http-equiv=\"refresh\" content=\"").append(REFRESH_SECONDS).append("\">")
        .append("<title>kvrelay ").append(e(r.dcName())).append("</title><style>").append(CSS)
        .append("</style></head><body>");
    h.append("<h1>kvrelay DC relay <span class=\"dc-name\">").append(e(r.dcName())).append("</span> ")
        .append(r.ready() ? "<span class=\"ok\">ready</span>" : "<span class=\"bad\">not ready</span>")
        .append("</h1><dl>");
    dt(h, "DC id", "dc-id", r.dcId());
    dt(h, "runtime instance", "drt", Long.toUnsignedString(r.drtInstanceId()));
    dt(h, "incarnation", "incarnation", Long.toUnsignedString(r.incarnation()));
    dt(h, "uptime", "uptime", uptime(r.uptime().getSeconds()));
    dt(h, "catalog / topology revision", "revisions", r.catalogRevision() + " / " + r.topologyRevision());
    dt(h, "pool subscribers (all pools)", "subscribers", Integer.toString(r.poolSubscribers()));
    dt(h, "pool streams ended lagged", "lagged", Long.toString(r.poolLagged()));
    h.append("</dl>");

    h.append("<h2>Pools</h2><table id=\"pools\"><tr><th>serving endpoint</th><th>state</th><th>generation</th>"
        + "<th>buckets</th><th>fill (occupied / slots)</th><th>resident</th><th>omissions</th><th>sequence</th>"
        + "<th>events/s</th><th>publications/s</th><th>deltas / snapshots</th></tr>");
    if (r.pools().isEmpty()) {
      h.append("<tr><td class=\"t\" colspan=\"11\">no pools</td></tr>");
    }
    for (StatusReport.Pool p : r.pools()) {
      h.append("<tr class=\"pool\" data-endpoint=\"").append(e(p.endpoint())).append("\">");
      td(h, "endpoint t", p.endpoint());
      td(h, "state t", p.state());
      td(h, "generation", Long.toUnsignedString(p.generation()));
      td(h, "buckets", Integer.toString(p.buckets()));
      h.append("<td class=\"fill\">").append(p.occupiedSlots()).append(" / ").append(p.slots()).append(' ')
          .append(String.format(Locale.ROOT, "(%.2f%%)", 100 * p.fill()))
          .append("<span class=\"bar\"><i style=\"width:")
          .append(String.format(Locale.ROOT, "%.1f", Math.min(100, 100 * p.fill()))).append("%\"></i></span></td>");
      td(h, "resident", Long.toString(p.residentHashes()));
      td(h, "omissions", Long.toString(p.capacityOmissions()));
      td(h, "sequence", Long.toUnsignedString(p.sequence()));
      h.append("<td class=\"events-rate\">").append(rate(p.eventsPerSecond())).append("<br>")
          .append(sparkline(p.history().eventsPerSecond(), "#3b7dd8")).append("</td>");
      h.append("<td class=\"sequence-rate\">").append(rate(p.sequencePerSecond())).append("<br>")
          .append(sparkline(p.history().sequencePerSecond(), "#d8743b")).append("</td>");
      td(h, "publications", p.publishedDeltas() + " / " + p.publishedSnapshots());
      h.append("</tr>");
    }
    h.append("</table>");

    h.append("<h2>Recovery and load counters</h2><table id=\"recovery\">");
    for (StatusReport.Pool p : r.pools()) {
      h.append("<tr class=\"recovery\"><td class=\"t\">").append(e(p.endpoint())).append("</td><td class=\"t\">");
      counters(h, p.recovery());
      h.append("</td><td class=\"t\"><small>load</small> ");
      counters(h, p.load());
      h.append("</td></tr>");
    }
    h.append("</table>");

    h.append("<h2>Readiness</h2><table id=\"readiness\"><tr><th>namespace</th><th>model</th><th>state</th>"
        + "<th>present roles</th><th>missing roles</th><th>adapters</th></tr>");
    if (r.readiness().isEmpty()) {
      h.append("<tr><td class=\"t\" colspan=\"6\">no models</td></tr>");
    }
    for (StatusReport.Readiness x : r.readiness()) {
      h.append("<tr class=\"readiness\" data-model=\"").append(e(x.model())).append("\">");
      td(h, "namespace t", x.namespace());
      td(h, "model t", x.model());
      td(h, "state t " + (x.missingRoles().isEmpty() ? "ok" : "bad"), x.state());
      td(h, "present t", String.join(", ", x.presentRoles()));
      td(h, "missing t", String.join(", ", x.missingRoles()));
      StringBuilder a = new StringBuilder();
      for (StatusReport.Adapter ad : x.adapters()) {
        a.append(a.length() == 0 ? "" : "; ").append(ad.model()).append(' ').append(ad.state());
        if (!ad.missingRoles().isEmpty()) {
          a.append(" (missing ").append(String.join(", ", ad.missingRoles())).append(')');
        }
      }
      td(h, "adapters t", a.toString());
      h.append("</tr>");
    }
    h.append("</table>");

    h.append("<h2>Errors</h2><p id=\"errors\">");
    counters(h, r.errors());
    if (r.sourcesLastError() != null) {
      h.append("<br>sources: <span class=\"bad\">").append(e(r.sourcesLastError())).append("</span>");
    }
    h.append("</p><p><small>Refreshes every ").append(REFRESH_SECONDS)
        .append(" s; the same data as <a href=\"/status.json\">/status.json</a>; sparklines: the last ")
        .append(StatusSampler.CAPACITY).append(" samples, one per second.</small></p></body></html>");
    return h.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** An inline SVG polyline of {@code values} (oldest left), scaled to its maximum. */
  static String sparkline(double[] values, String colour) {
    int w = 120;
    int ht = 24;
    StringBuilder s = new StringBuilder("<svg class=\"spark\" width=\"").append(w).append("\" height=\"")
        .append(ht).append("\" viewBox=\"0 0 ").append(w).append(' ').append(ht).append("\">");
    if (values.length >= 2) {
      double max = 0;
      for (double v : values) {
        max = Math.max(max, v);
      }
      s.append("<polyline fill=\"none\" stroke=\"").append(colour).append("\" stroke-width=\"1.5\" points=\"");
      double step = (double) w / (StatusSampler.CAPACITY - 1);
      double x0 = w - step * (values.length - 1);
      for (int i = 0; i < values.length; i++) {
        double y = max == 0 ? ht - 1 : ht - 1 - (ht - 2) * values[i] / max;
        s.append(String.format(Locale.ROOT, "%.1f,%.1f ", x0 + step * i, y));
      }
      s.append("\"/>");
    }
    return s.append("</svg>").toString();
  }

  private static void counters(StringBuilder h, Map<String, Long> values) {
    boolean first = true;
    for (Map.Entry<String, Long> c : values.entrySet()) {
      h.append(first ? "" : " · ").append(e(c.getKey())).append(' ');
      if (c.getValue() != 0) {
        h.append("<b>").append(c.getValue()).append("</b>");
      } else {
        h.append('0');
      }
      first = false;
    }
  }

  private static void dt(StringBuilder h, String label, String cls, String value) {
    h.append("<dt>").append(e(label)).append("</dt><dd class=\"").append(cls).append("\">").append(e(value))
        .append("</dd>");
  }

  private static void td(StringBuilder h, String cls, String value) {
    h.append("<td class=\"").append(cls).append("\">").append(e(value)).append("</td>");
  }

  private static String rate(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  private static String uptime(long secs) {
    return String.format(Locale.ROOT, "%dd %02d:%02d:%02d", secs / 86400, secs / 3600 % 24, secs / 60 % 60,
        secs % 60);
  }

  private static String e(String text) {
    return ESCAPE.escape(text);
  }
}
