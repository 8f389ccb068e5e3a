package dev.kvrelay.launcher.system;

import com.google.common.escape.Escaper;
import com.google.common.html.HtmlEscapers;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe (stateless): the {@code /status} page — server-rendered HTML with inline CSS, a 2 s meta refresh and
 * inline SVG sparklines; no script, no external resource. Every text taken from the report is HTML-escaped (Guava's
 * {@code HtmlEscapers}). Sections, in order: identity, pools, pool subscribers with their lag, readiness, recent
 * errors, plugin connections, load windows (relay-wide counters, then per pool the coverage of the latest
 * pool-load window the page's own watch took, and the latest serving-load window per pool and model), sources and
 * recovery, error counters. Rows carry stable classes ({@code pool}, {@code subscriber}, {@code readiness},
 * {@code connection}, {@code recent-error}, {@code pool-load}, {@code serving-pool}, {@code serving-model}, …) and
 * cells stable classes ({@code endpoint}, {@code sequence}, {@code lag}, {@code model}, {@code coverage},
 * {@code ranks}, {@code kv-blocks}, …) so tools and tests can read the DOM.
 */
final class StatusHtml {
  private static final Escaper ESCAPE = HtmlEscapers.htmlEscaper();
  /** The page's refresh period in seconds. */
  static final int REFRESH_SECONDS = 2;
  private static final String CSS = "body{font:14px system-ui,sans-serif;margin:16px;color:#222;background:#fafafa}"
      + "h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:18px 0 6px}h3{font-size:14px;margin:10px 0 4px}"
      + "table{border-collapse:collapse;background:#fff;font-size:13px}th,td{border:1px solid #ccc;padding:3px 6px;"
      + "text-align:right;vertical-align:top}th{background:#e8eef5}td.t{text-align:left}"
      + ".ok{color:#176b2c;font-weight:600}.bad{color:#b00020;font-weight:600}"
      + ".bar{display:inline-block;width:60px;height:8px;background:#ddd;margin-left:4px}"
      + ".bar i{display:block;height:8px;background:#3b7dd8}svg{background:#f3f6fa}"
      + "dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:0}dt{color:#555}"
      + "small{color:#666}td.c{text-align:left;font-size:12px;max-width:520px}";

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
    dt(h, "uptime", "uptime", uptime(r.uptime().toSeconds()));
    dt(h, "catalog / topology revision", "revisions", r.catalogRevision() + " / " + r.topologyRevision());
    dt(h, "pool subscribers (all pools)", "subscribers", Integer.toString(r.poolSubscribers()));
    dt(h, "pool streams ended lagged", "lagged", Long.toString(r.poolLagged()));
    h.append("</dl>");

    h.append("<h2>Pools</h2><table id=\"pools\"><tr><th>serving endpoint</th><th>state</th><th>generation</th>"
        + "<th>buckets</th><th>fill</th><th>resident</th><th>omissions</th><th>sequence</th>"
        + "<th>events/s</th><th>publications/s</th><th>deltas / snapshots</th><th>subscribers, max lag</th></tr>");
    if (r.pools().isEmpty()) {
      h.append("<tr><td class=\"t\" colspan=\"12\">no pools</td></tr>");
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
      h.append("<td class=\"max-lag\">").append(p.subscribers().size()).append(", ")
          .append(Long.toUnsignedString(p.maxLag())).append("<br>")
          .append(sparkline(p.history().maxLag(), "#b00020")).append("</td>");
      h.append("</tr>");
    }
    h.append("</table>");

    subscribers(h, r);
    readiness(h, r);
    recentErrors(h, r);
    connections(h, r);
    load(h, r);
    sources(h, r);

    h.append("<h2>Error counters</h2><p id=\"errors\">");
    counters(h, r.errors());
    if (r.sourcesLastError() != null) {
      h.append("<br>sources: <span class=\"bad\">").append(e(r.sourcesLastError())).append("</span>");
    }
    h.append("</p><p><small>Refreshes every ").append(REFRESH_SECONDS)
        .append(" s; the same data as <a href=\"/status.json\">/status.json</a>; sparklines: the last ")
        .append(StatusSampler.CAPACITY).append(" samples, one per second (events/s blue, publications/s orange, max"
            + " subscriber lag red).</small></p></body></html>");
    return h.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void readiness(StringBuilder h, StatusReport r) {
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

  }

  private static void subscribers(StringBuilder h, StatusReport r) {
    h.append("<h2>Pool subscribers</h2><table id=\"subscribers\"><tr><th>pool</th><th>subscriber</th>"
        + "<th>stream</th><th>lag (sequences)</th><th>queued frames</th><th>queued bytes</th><th>published seq</th>"
        + "<th>delivered seq</th><th>snapshot chunks pending</th><th>connected since</th></tr>");
    int rows = 0;
    for (StatusReport.Pool p : r.pools()) {
      for (StatusReport.Subscriber s : p.subscribers()) {
        subscriber(h, p.endpoint(), s);
        rows++;
      }
    }
    for (StatusReport.Subscriber s : r.unattachedSubscribers()) {
      subscriber(h, "(ended generation)", s);
      rows++;
    }
    if (rows == 0) {
      h.append("<tr><td class=\"t\" colspan=\"10\">no pool subscribers</td></tr>");
    }
    h.append("</table>");
  }

  private static void subscriber(StringBuilder h, String pool, StatusReport.Subscriber s) {
    h.append("<tr class=\"subscriber\" data-pool=\"").append(e(pool)).append("\" data-subscriber=\"")
        .append(e(s.subscriberId())).append("\">");
    td(h, "pool t", pool);
    td(h, "subscriber-id t", s.subscriberId());
    td(h, "stream t", s.stream());
    td(h, "lag" + (s.sequenceLag() == 0 ? "" : " bad"), Long.toUnsignedString(s.sequenceLag()));
    td(h, "queued-frames", Integer.toString(s.queuedFrames()));
    td(h, "queued-bytes", Long.toString(s.queuedBytes()));
    td(h, "published-sequence", Long.toUnsignedString(s.publishedSequence()));
    td(h, "delivered-sequence", Long.toUnsignedString(s.deliveredSequence()));
    td(h, "pending-chunks", Integer.toString(s.pendingSnapshotChunks()));
    td(h, "connected t", time(s.connectedSinceMicros() / 1000));
    h.append("</tr>");
  }

  private static void load(StringBuilder h, StatusReport r) {
    StatusReport.Load l = r.load();
    h.append("<h2>Load windows</h2><dl id=\"load\">");
    dt(h, "windows published (pool / serving)", "load-windows",
        l.windowsPublished() + " / " + l.servingWindowsPublished());
    dt(h, "coverage", "load-coverage", l.degradedCoveragePools() == 0 ? "complete for all " + l.catalogPools()
        + " catalog pools" : "degraded for " + l.degradedCoveragePools() + " of " + l.catalogPools() + " pools");
    dt(h, "load reports (observed / rejected)", "load-reports", l.observations() + " / " + l.rejected());
    dt(h, "publisher errors", "load-publish-errors", Long.toString(l.publishErrors()));
    dt(h, "load subscribers (pool / serving)", "load-subscribers",
        l.subscribers() + " / " + l.servingSubscribers());
    h.append("</dl>");
    StatusLoadWindows w = r.loadWindows();
    StatusLoadWindows.PoolWindow pw = w.pool();
    h.append("<h3>Pool load window</h3><p class=\"load-window\">");
    if (pw == null) {
      h.append("no window taken yet");
    } else {
      h.append("window <span class=\"load-window-sequence\">").append(Long.toUnsignedString(pw.windowSequence()))
          .append("</span> of ").append(Long.toUnsignedString(pw.windowMs())).append(" ms, built ")
          .append(time(pw.observedMs())).append(", age <span class=\"load-window-age\">").append(pw.ageMs())
          .append("</span> ms");
    }
    h.append("</p><table id=\"pool-load\"><tr><th>pool</th><th>coverage</th><th>ranks (observed / expected)</th>"
        + "<th>kv blocks (used / total)</th><th>generation</th><th>load counters</th></tr>");
    Map<String, StatusLoadWindows.PoolCoverage> coverage = new java.util.HashMap<>();
    if (pw != null) {
      pw.pools().forEach(c -> coverage.put(c.endpoint(), c));
    }
    java.util.Set<String> shown = new java.util.HashSet<>();
    for (StatusReport.Pool p : r.pools()) {
      shown.add(p.endpoint());
      poolLoad(h, p.endpoint(), coverage.get(p.endpoint()), p.load());
    }
    if (pw != null) {
      for (StatusLoadWindows.PoolCoverage c : pw.pools()) {
        if (!shown.contains(c.endpoint())) {
          poolLoad(h, c.endpoint(), c, null);
        }
      }
    }
    h.append("</table>");
    StatusLoadWindows.ServingWindow sw = w.serving();
    h.append("<h3>Serving load window</h3><p class=\"serving-window\">");
    if (sw == null) {
      h.append("no window taken yet</p>");
    } else {
      h.append("window <span class=\"serving-window-sequence\">").append(Long.toUnsignedString(sw.windowSequence()))
          .append("</span>, age ").append(sw.ageMs()).append(" ms</p><table id=\"serving-load\"><tr><th>pool /"
              + " model</th><th>status</th><th>detail</th></tr>");
      for (StatusLoadWindows.ServingPool x : sw.pools()) {
        h.append("<tr class=\"serving-pool\" data-endpoint=\"").append(e(x.endpoint())).append("\">");
        td(h, "endpoint t", x.endpoint());
        td(h, "status t" + (x.status().equals("COMPLETE") ? " ok" : " bad"), x.status());
        td(h, "detail t", "prefill tokens " + opt(x.activePrefillTokens()) + ", decode blocks "
            + opt(x.activeDecodeBlocks()) + ", live workers " + opt(x.liveWorkers()));
        h.append("</tr>");
      }
      for (StatusLoadWindows.ServingModel m : sw.models()) {
        h.append("<tr class=\"serving-model\" data-model=\"").append(e(m.model())).append("\">");
        td(h, "model t", m.namespace() + " / " + m.model());
        td(h, "status t" + (m.status().equals("COMPLETE") ? " ok" : " bad"), m.status());
        td(h, "detail t", "frontends " + Long.toUnsignedString(m.observedFrontends()) + " / "
            + Long.toUnsignedString(m.expectedFrontends()) + ", serving pools " + m.servingPools());
        h.append("</tr>");
      }
      h.append("</table>");
    }
    h.append("<p><small>Coverage comes from the latest windows taken by the page's own watches, subscriber id <b>")
        .append(e(w.poolWatch().subscriberId())).append("</b> on the pool-load and serving-load streams: they are"
            + " real subscribers and count in the load subscriber limits and gauges above. Watch restarts (pool /"
            + " serving): <span class=\"load-watch-restarts\">").append(w.poolWatch().ended()).append(" / ")
        .append(w.servingWatch().ended()).append("</span>, open failures ").append(w.poolWatch().openFailures())
        .append(" / ").append(w.servingWatch().openFailures());
    if (w.poolWatch().lastEnd() != null) {
      h.append(", last pool watch end ").append(e(w.poolWatch().lastEnd()));
    }
    h.append(".</small></p>");
  }

  private static void poolLoad(StringBuilder h, String endpoint, StatusLoadWindows.@Nullable PoolCoverage c,
      @Nullable Map<String, Long> counters) {
    h.append("<tr class=\"pool-load\" data-endpoint=\"").append(e(endpoint)).append("\">");
    td(h, "endpoint t", endpoint);
    if (c == null) {
      td(h, "coverage t", "not in window");
      td(h, "ranks", "");
      td(h, "kv-blocks", "");
      td(h, "generation", "");
    } else {
      td(h, "coverage t " + (c.coverage().equals(StatusLoadWindows.FULL) ? "ok" : "bad"), c.coverage());
      td(h, "ranks", c.observedRanks() + " / " + c.expectedRanks());
      td(h, "kv-blocks", Long.toUnsignedString(c.kvUsedBlocks()) + " / " + Long.toUnsignedString(c.totalKvBlocks()));
      td(h, "generation", Long.toUnsignedString(c.generation()));
    }
    h.append("<td class=\"c\">");
    if (counters != null) {
      counters(h, counters);
    }
    h.append("</td></tr>");
  }

  private static String opt(@Nullable Long v) {
    return v == null ? "–" : Long.toUnsignedString(v);
  }

  private static void sources(StringBuilder h, StatusReport r) {
    h.append("<h2>Sources and recovery</h2><table id=\"recovery\">");
    for (StatusReport.Pool p : r.pools()) {
      h.append("<tr class=\"recovery\"><td class=\"t\">").append(e(p.endpoint())).append("</td><td class=\"c\">");
      counters(h, p.recovery());
      h.append("</td><td class=\"c sources\">");
      if (p.sources().isEmpty()) {
        h.append("no bound sources");
      } else {
        for (StatusReport.Source s : p.sources()) {
          h.append("<div class=\"source\">worker ").append(Long.toUnsignedString(s.workerId())).append(" rank ")
              .append(Integer.toUnsignedString(s.dpRank())).append(": <b>").append(e(s.state())).append("</b>")
              .append(s.suspect() ? " suspect" : "").append(s.recoverable() ? "" : " live-only")
              .append(", last event ").append(s.lastEventAgeMs() < 0 ? "never" : s.lastEventAgeMs() + " ms ago")
              .append(", resets ").append(Long.toUnsignedString(s.resets())).append(", buffered ")
              .append(s.bufferedEvents()).append("</div>");
        }
      }
      h.append("</td></tr>");
    }
    h.append("</table>");
  }

  private static void connections(StringBuilder h, StatusReport r) {
    h.append("<h2>Plugin connections</h2><table id=\"connections\"><tr><th>plugin</th><th>scope</th>"
        + "<th>state</th><th>counters</th><th>detail</th></tr>");
    for (StatusReport.Connection c : r.connections()) {
      h.append("<tr class=\"connection\" data-plugin=\"").append(e(c.plugin())).append("\">");
      td(h, "plugin t", c.plugin());
      td(h, "scope t", c.scope());
      String state = c.state();
      td(h, "state t" + (state.equals("CONNECTED") || state.equals("SERVING") ? " ok"
          : state.equals("UNKNOWN") || state.equals("DISABLED") ? "" : " bad"), state);
      h.append("<td class=\"c\">");
      counters(h, c.counters());
      h.append("</td>");
      td(h, "detail t", c.detail() == null ? "" : c.detail());
      h.append("</tr>");
    }
    h.append("</table><p><small>The plugin SPIs expose no connection state: CONNECTED / DISCONNECTED is derived"
        + " from the disconnect and reconnect faults the engine counted; UNKNOWN where nothing tells.</small></p>");
  }

  private static void recentErrors(StringBuilder h, StatusReport r) {
    h.append("<h2>Recent errors</h2><p><small>the last ").append(RecentErrors.CAPACITY)
        .append(" counter increases and messages seen between one-second samples; <span class=\"recent-recorded\">")
        .append(r.recentErrorsRecorded()).append("</span> recorded, <span class=\"recent-dropped\">")
        .append(r.recentErrorsDropped()).append("</span> pushed out</small></p><table id=\"recent-errors\">"
            + "<tr><th>time (UTC)</th><th>scope</th><th>what</th><th>increase</th><th>total / message</th></tr>");
    if (r.recentErrors().isEmpty()) {
      h.append("<tr><td class=\"t\" colspan=\"5\">none</td></tr>");
    }
    for (int i = r.recentErrors().size() - 1; i >= 0; i--) {
      RecentErrors.Entry x = r.recentErrors().get(i);
      h.append("<tr class=\"recent-error\">");
      td(h, "at t", time(x.atMillis()));
      td(h, "scope t", x.scope());
      td(h, "what t", x.what());
      td(h, "increase", x.message() == null ? "+" + Long.toUnsignedString(x.increase()) : "");
      td(h, "total t", x.message() == null ? Long.toUnsignedString(x.total()) : x.message());
      h.append("</tr>");
    }
    h.append("</table>");
  }

  private static String time(long epochMillis) {
    return java.time.Instant.ofEpochMilli(epochMillis).toString();
  }

  /** An inline SVG polyline of {@code values} (oldest left), scaled to its maximum. */
  static String sparkline(double[] values, String colour) {
    int w = 96;
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
        h.append("<b>").append(Long.toUnsignedString(c.getValue())).append("</b>"); // counters are u64
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
