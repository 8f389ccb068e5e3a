package dev.kvrelay.spi.eventplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.longs;

import dev.kvrelay.api.json.Json;
import dev.kvrelay.spi.eventplane.WorkerKvQueryDecodeException.Reason;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The JSON of runtime-inputs.md §6.2 (request, externally tagged response) with §5.7 RouterEvents inside. */
class WorkerKvQueryCodecTest {

  /** runtime-inputs.md §5.7, verbatim. */
  static final String SPEC_ROUTER_EVENT = """
      {"worker_id":7587891234567890123,
       "storage_tier":"device",
       "residency_domain":"worker",
       "event":{"event_id":42,
                "data":{"stored":{"parent_hash":12345678901234567890,"start_position":null,
                         "blocks":[{"block_hash":9876543210987654321,"tokens_hash":14643705804678351452,"mm_extra_info":null}]}},
                "dp_rank":0}}""";

  /** runtime-inputs.md §6.2, verbatim. */
  static final String SPEC_REQUEST = """
      {"worker_id":7587891234567890123,"dp_rank":0,"start_event_id":43,"end_event_id":null,
       "supports_tree_dump_failed":true,"kind":"recovery"}""";

  static final RouterEvent SPEC_EVENT = new RouterEvent(7587891234567890123L, StorageTier.DEVICE,
      ResidencyDomain.WORKER, 42, 0, new KvEventData.Stored(OptionalLong.of(Long.parseUnsignedLong("12345678901234567890")),
          OptionalLong.empty(), List.of(StoredBlock.of(Long.parseUnsignedLong("9876543210987654321"),
              Long.parseUnsignedLong("14643705804678351452")))));

  private static String compact(String spec) {
    return spec.replaceAll("\\s+", "");
  }

  @Test
  void specRouterEventExampleDecodesAndEncodesToTheSameCompactText() throws Exception {
    RouterEvent e = WorkerKvQueryCodec.decodeRouterEvent(Json.parse(SPEC_ROUTER_EVENT));
    assertThat(e).isEqualTo(SPEC_EVENT);
    assertThat(Json.write(WorkerKvQueryCodec.routerEventJson(e))).isEqualTo(compact(SPEC_ROUTER_EVENT));
  }

  @Test
  void specRequestExampleDecodesAndEncodesToTheSameCompactText() throws Exception {
    WorkerKvQueryRequest r = WorkerKvQueryCodec.decodeRequest(SPEC_REQUEST);
    assertThat(r).isEqualTo(WorkerKvQueryRequest.incremental(7587891234567890123L, 0, 43));
    assertThat(WorkerKvQueryCodec.encodeRequest(r)).isEqualTo(compact(SPEC_REQUEST));
  }

  @Test
  void fullRestoreRequestHasNullStart() {
    assertThat(WorkerKvQueryCodec.encodeRequest(WorkerKvQueryRequest.fullRestore(5, 2))).isEqualTo(
        "{\"worker_id\":5,\"dp_rank\":2,\"start_event_id\":null,\"end_event_id\":null,"
            + "\"supports_tree_dump_failed\":true,\"kind\":\"recovery\"}");
  }

  @Test
  void legacyRequestWithoutOptionalFieldsUsesSerdeDefaults() throws Exception {
    WorkerKvQueryRequest r = WorkerKvQueryCodec.decodeRequest("{\"worker_id\":7,\"dp_rank\":3,\"end_event_id\":9}");
    assertThat(r).isEqualTo(new WorkerKvQueryRequest(7, 3, OptionalLong.empty(), OptionalLong.of(9), false,
        WorkerKvQueryRequest.Kind.RECOVERY));
  }

  @Test
  void specResponseShapesDecode() throws Exception {
    String ev = compact(SPEC_ROUTER_EVENT);
    assertThat(WorkerKvQueryCodec.decodeResponse("{\"Events\":{\"events\":[" + ev + "],\"last_event_id\":42}}"))
        .isEqualTo(new WorkerKvQueryResponse.Events(List.of(SPEC_EVENT), 42));
    assertThat(WorkerKvQueryCodec.decodeResponse(
        "{\"TreeDump\":{\"events\":[" + ev + "],\"last_event_id\":42,\"reset_scope\":\"all\"}}"))
        .isEqualTo(new WorkerKvQueryResponse.TreeDump(List.of(SPEC_EVENT), 42, "all"));
    assertThat(WorkerKvQueryCodec.decodeResponse("{\"TreeDumpFailed\":{\"last_event_id\":42,\"message\":\"…\"}}"))
        .isEqualTo(new WorkerKvQueryResponse.TreeDumpFailed(42, "…"));
    assertThat(WorkerKvQueryCodec.decodeResponse(
        "{\"TooNew\":{\"requested_start\":50,\"requested_end\":null,\"newest_available\":42}}"))
        .isEqualTo(new WorkerKvQueryResponse.TooNew(OptionalLong.of(50), OptionalLong.empty(), 42));
    assertThat(WorkerKvQueryCodec.decodeResponse("{\"InvalidRange\":{\"start_id\":9,\"end_id\":3}}"))
        .isEqualTo(new WorkerKvQueryResponse.InvalidRange(OptionalLong.of(9), OptionalLong.of(3)));
    assertThat(WorkerKvQueryCodec.decodeResponse("{\"Error\":\"msg\"}"))
        .isEqualTo(new WorkerKvQueryResponse.Error("msg"));
  }

  @Test
  void legacyTreeDumpWithoutResetScopeIsWholeRank() throws Exception {
    assertThat(WorkerKvQueryCodec.decodeResponse("{\"TreeDump\":{\"events\":[],\"last_event_id\":0}}"))
        .isEqualTo(new WorkerKvQueryResponse.TreeDump(List.of(), 0, "all"));
  }

  @Test
  void responsesEncodeInTheSpecShapes() {
    assertThat(WorkerKvQueryCodec.encodeResponse(new WorkerKvQueryResponse.Events(List.of(SPEC_EVENT), 42)))
        .isEqualTo("{\"Events\":{\"events\":[" + compact(SPEC_ROUTER_EVENT) + "],\"last_event_id\":42}}");
    assertThat(WorkerKvQueryCodec.encodeResponse(new WorkerKvQueryResponse.Error("msg"))).isEqualTo("{\"Error\":\"msg\"}");
    assertThat(WorkerKvQueryCodec.encodeResponse(new WorkerKvQueryResponse.TreeDump(List.of(), -1L, "all")))
        .isEqualTo("{\"TreeDump\":{\"events\":[],\"last_event_id\":18446744073709551615,\"reset_scope\":\"all\"}}");
  }

  @Test
  void u64AboveLongMaxIsReadUnsigned() throws Exception {
    WorkerKvQueryRequest r = WorkerKvQueryCodec.decodeRequest(
        "{\"worker_id\":18446744073709551615,\"dp_rank\":4294967295,\"start_event_id\":9223372036854775808}");
    assertThat(r.workerId()).isEqualTo(-1L);
    assertThat(r.dpRank()).isEqualTo(-1);
    assertThat(r.startEventId()).hasValue(Long.MIN_VALUE);
  }

  @ParameterizedTest(name = "{0} -> {1} at {2}")
  @CsvSource(delimiter = '|', value = {
    "{|MALFORMED_JSON|''",
    "{\"worker_id\":1,\"worker_id\":2,\"dp_rank\":0}|MALFORMED_JSON|''",
    "[]|WRONG_TYPE|''",
    "{\"dp_rank\":0}|MISSING_FIELD|worker_id",
    "{\"worker_id\":1}|MISSING_FIELD|dp_rank",
    "{\"worker_id\":-1,\"dp_rank\":0}|OUT_OF_RANGE|worker_id",
    "{\"worker_id\":1.5,\"dp_rank\":0}|OUT_OF_RANGE|worker_id",
    "{\"worker_id\":18446744073709551616,\"dp_rank\":0}|OUT_OF_RANGE|worker_id",
    "{\"worker_id\":\"1\",\"dp_rank\":0}|WRONG_TYPE|worker_id",
    "{\"worker_id\":1,\"dp_rank\":4294967296}|OUT_OF_RANGE|dp_rank",
    "{\"worker_id\":1,\"dp_rank\":0,\"start_event_id\":true}|WRONG_TYPE|start_event_id",
    "{\"worker_id\":1,\"dp_rank\":0,\"supports_tree_dump_failed\":1}|WRONG_TYPE|supports_tree_dump_failed",
    "{\"worker_id\":1,\"dp_rank\":0,\"kind\":\"status\"}|BAD_VARIANT|kind",
    "{\"worker_id\":1,\"dp_rank\":0,\"kind\":{\"status\":{}}}|BAD_VARIANT|kind",
  })
  void malformedRequestsAreRejectedWithATypedReason(String json, Reason reason, String field) {
    assertThatThrownBy(() -> WorkerKvQueryCodec.decodeRequest(json))
        .isInstanceOfSatisfying(WorkerKvQueryDecodeException.class, e -> {
          assertThat(e.reason()).isEqualTo(reason);
          assertThat(e.field()).isEqualTo(field);
        });
  }

  @ParameterizedTest(name = "{0} -> {1} at {2}")
  @CsvSource(delimiter = '|', value = {
    "\"Error\"|WRONG_TYPE|''",
    "{}|BAD_VARIANT|''",
    "{\"Error\":\"a\",\"Events\":{}}|BAD_VARIANT|''",
    "{\"Status\":{}}|BAD_VARIANT|''",
    "{\"Error\":1}|WRONG_TYPE|Error",
    "{\"Events\":[]}|WRONG_TYPE|Events",
    "{\"Events\":{\"last_event_id\":1}}|MISSING_FIELD|Events.events",
    "{\"Events\":{\"events\":[]}}|MISSING_FIELD|Events.last_event_id",
    "{\"Events\":{\"events\":{},\"last_event_id\":1}}|WRONG_TYPE|Events.events",
    "{\"Events\":{\"events\":[1],\"last_event_id\":1}}|WRONG_TYPE|Events.events",
    "{\"Events\":{\"events\":[{\"event\":{}}],\"last_event_id\":1}}|MISSING_FIELD|Events.events.worker_id",
    "{\"Events\":{\"events\":[{\"worker_id\":1}],\"last_event_id\":1}}|MISSING_FIELD|Events.events.event",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"event\":{\"data\":\"cleared\"}}],\"last_event_id\":1}}|MISSING_FIELD|Events.events.event.event_id",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"event\":{\"event_id\":1}}],\"last_event_id\":1}}|MISSING_FIELD|Events.events.event.data",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"event\":{\"event_id\":1,\"data\":\"stored\"}}],\"last_event_id\":1}}|BAD_VARIANT|Events.events.event.data",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"event\":{\"event_id\":1,\"data\":\"x\"}}],\"last_event_id\":1}}|BAD_VARIANT|Events.events.event.data",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"event\":{\"event_id\":1,\"data\":{\"x\":{}}}}],\"last_event_id\":1}}|BAD_VARIANT|Events.events.event.data",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"event\":{\"event_id\":1,\"data\":{}}}],\"last_event_id\":1}}|BAD_VARIANT|Events.events.event.data",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"event\":{\"event_id\":1,\"data\":7}}],\"last_event_id\":1}}|WRONG_TYPE|Events.events.event.data",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"event\":{\"event_id\":1,\"data\":{\"stored\":{}}}}],\"last_event_id\":1}}|MISSING_FIELD|Events.events.event.data.stored.blocks",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"event\":{\"event_id\":1,\"data\":{\"stored\":{\"blocks\":[{\"block_hash\":1}]}}}}],\"last_event_id\":1}}|MISSING_FIELD|Events.events.event.data.stored.blocks.tokens_hash",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"event\":{\"event_id\":1,\"data\":{\"stored\":{\"blocks\":[{\"block_hash\":1,\"tokens_hash\":2,\"mm_extra_info\":{\"mm_objects\":[{\"mm_hash\":1,\"offsets\":[[1]]}]}}]}}}}],\"last_event_id\":1}}|WRONG_TYPE|Events.events.event.data.stored.blocks.mm_extra_info.mm_objects.offsets",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"event\":{\"event_id\":1,\"data\":{\"removed\":{\"block_hashes\":[-1]}}}}],\"last_event_id\":1}}|OUT_OF_RANGE|Events.events.event.data.removed.block_hashes",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"storage_tier\":\"gpu\",\"event\":{\"event_id\":1,\"data\":\"cleared\"}}],\"last_event_id\":1}}|BAD_VARIANT|Events.events.storage_tier",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"residency_domain\":5,\"event\":{\"event_id\":1,\"data\":\"cleared\"}}],\"last_event_id\":1}}|WRONG_TYPE|Events.events.residency_domain",
    "{\"Events\":{\"events\":[{\"worker_id\":1,\"event\":{\"event_id\":1,\"dp_rank\":4294967296,\"data\":\"cleared\"}}],\"last_event_id\":1}}|OUT_OF_RANGE|Events.events.event.dp_rank",
    "{\"TreeDumpFailed\":{\"last_event_id\":1}}|MISSING_FIELD|TreeDumpFailed.message",
    "{\"TooNew\":{\"requested_start\":1}}|MISSING_FIELD|TooNew.newest_available",
    "{\"InvalidRange\":{\"start_id\":\"a\"}}|WRONG_TYPE|InvalidRange.start_id",
  })
  void malformedResponsesAreRejectedWithATypedReason(String json, Reason reason, String field) {
    assertThatThrownBy(() -> WorkerKvQueryCodec.decodeResponse(json))
        .isInstanceOfSatisfying(WorkerKvQueryDecodeException.class, e -> {
          assertThat(e.reason()).isEqualTo(reason);
          assertThat(e.field()).isEqualTo(field);
        });
  }

  @Test
  void invalidUtf8IsMalformedJson() {
    assertThatThrownBy(() -> WorkerKvQueryCodec.decodeResponse(new byte[] {'{', '"', (byte) 0xC3, '"', '}'}))
        .isInstanceOfSatisfying(WorkerKvQueryDecodeException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED_JSON));
  }

  @Test
  void routerEventJsonEqualsAnIndependentRenderingOfTheSpecTree() {
    qt().withExamples(2_000).forAll(longs().all()).checkAssert(seed -> {
      RouterEvent e = EventGens.routerEvent(new SplittableRandom(seed));
      assertThat(Json.write(WorkerKvQueryCodec.routerEventJson(e))).isEqualTo(render(SpecTree.routerEvent(e)));
    });
  }

  @Test
  void requestsRoundTrip() {
    qt().withExamples(2_000).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      WorkerKvQueryRequest q = new WorkerKvQueryRequest(EventGens.u64(r), EventGens.u32(r), EventGens.optU64(r),
          EventGens.optU64(r), r.nextBoolean(), WorkerKvQueryRequest.Kind.RECOVERY);
      try {
        assertThat(WorkerKvQueryCodec.decodeRequest(WorkerKvQueryCodec.encodeRequest(q))).isEqualTo(q);
        assertThat(WorkerKvQueryCodec.decodeRequest(
            WorkerKvQueryCodec.encodeRequest(q).getBytes(StandardCharsets.UTF_8))).isEqualTo(q);
      } catch (WorkerKvQueryDecodeException ex) {
        throw new AssertionError(ex);
      }
    });
  }

  @Test
  void responsesRoundTrip() {
    qt().withExamples(2_000).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      WorkerKvQueryResponse resp = response(r);
      try {
        assertThat(WorkerKvQueryCodec.decodeResponse(WorkerKvQueryCodec.encodeResponse(resp))).isEqualTo(resp);
      } catch (WorkerKvQueryDecodeException ex) {
        throw new AssertionError(ex);
      }
    });
  }

  @Test
  void truncatedOrMutatedResponsesNeverThrowUnchecked() {
    qt().withExamples(2_000).forAll(longs().all()).checkAssert(seed -> {
      SplittableRandom r = new SplittableRandom(seed);
      byte[] bytes = WorkerKvQueryCodec.encodeResponse(response(r)).getBytes(StandardCharsets.UTF_8);
      byte[] cut = java.util.Arrays.copyOf(bytes, r.nextInt(bytes.length + 1));
      if (cut.length > 0 && r.nextBoolean()) {
        cut[r.nextInt(cut.length)] = (byte) " {}[]\",:0-1nt9e.x".charAt(r.nextInt(17));
      }
      try {
        WorkerKvQueryCodec.decodeResponse(cut);
      } catch (WorkerKvQueryDecodeException expected) {
        assertThat(expected.reason()).isNotNull();
      }
    });
  }

  @Test
  void pythonJsonReadsTheEncodingsAsTheSpecValues() throws Exception {
    String request = WorkerKvQueryCodec.encodeRequest(WorkerKvQueryRequest.incremental(-1L, 0, 43));
    String response = WorkerKvQueryCodec.encodeResponse(new WorkerKvQueryResponse.Events(List.of(SPEC_EVENT), 42));
    String script = "import json,sys\n"
        + "q=json.loads(sys.argv[1]); r=json.loads(sys.argv[2])\n"
        + "assert q=={'worker_id':18446744073709551615,'dp_rank':0,'start_event_id':43,'end_event_id':None,"
        + "'supports_tree_dump_failed':True,'kind':'recovery'}, q\n"
        + "e=r['Events']['events'][0]\n"
        + "assert r['Events']['last_event_id']==42\n"
        + "assert e==json.loads(sys.argv[3]), e\n"
        + "print('ok')\n";
    Process p;
    try {
      p = new ProcessBuilder("/usr/bin/python3", "-c", script, request, response, SPEC_ROUTER_EVENT)
          .redirectErrorStream(true).start();
    } catch (IOException e) {
      org.junit.jupiter.api.Assumptions.abort("/usr/bin/python3 not available: " + e.getMessage());
      return;
    }
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(out.trim()).isEqualTo("ok");
  }

  private static WorkerKvQueryResponse response(SplittableRandom r) {
    switch (r.nextInt(6)) {
      case 0: {
        List<RouterEvent> evs = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
          evs.add(EventGens.routerEvent(r));
        }
        return new WorkerKvQueryResponse.Events(evs, EventGens.u64(r));
      }
      case 1: {
        List<RouterEvent> evs = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
          evs.add(EventGens.routerEvent(r));
        }
        return new WorkerKvQueryResponse.TreeDump(evs, EventGens.u64(r), r.nextBoolean() ? "all" : EventGens.text(r));
      }
      case 2:
        return new WorkerKvQueryResponse.TreeDumpFailed(EventGens.u64(r), EventGens.text(r));
      case 3:
        return new WorkerKvQueryResponse.TooNew(EventGens.optU64(r), EventGens.optU64(r), EventGens.u64(r));
      case 4:
        return new WorkerKvQueryResponse.InvalidRange(EventGens.optU64(r), EventGens.optU64(r));
      default:
        return new WorkerKvQueryResponse.Error(EventGens.text(r));
    }
  }

  /** An independent compact JSON rendering of a {@link SpecTree} value (strings here need no escaping). */
  private static String render(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof BigInteger b) {
      return b.toString();
    }
    if (v instanceof SpecTree.Unit u) {
      return "\"" + u.name() + "\"";
    }
    if (v instanceof SpecTree.Variant var) {
      return "{\"" + var.name() + "\":" + render(var.value()) + "}";
    }
    if (v instanceof Map<?, ?> m) {
      StringBuilder sb = new StringBuilder("{");
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (sb.length() > 1) {
          sb.append(',');
        }
        sb.append('"').append(e.getKey()).append("\":").append(render(e.getValue()));
      }
      return sb.append('}').toString();
    }
    if (v instanceof List<?> l) {
      StringBuilder sb = new StringBuilder("[");
      for (Object o : l) {
        if (sb.length() > 1) {
          sb.append(',');
        }
        sb.append(render(o));
      }
      return sb.append(']').toString();
    }
    throw new AssertionError("unexpected spec tree node " + v.getClass());
  }
}
