package dev.kvrelay.requestplane.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvrelay.api.DynamoEndpointId;
import org.junit.jupiter.api.Test;

/** Transport strings and endpoint paths (plugins-wire §3). */
class TcpEndpointPathsTest {

  @Test
  void newestInstancePathEscapesPercentThenSlash() {
    long iid = Long.parseUnsignedLong("17216e63492ef21f", 16);
    assertThat(TcpEndpointPaths.instancePath(new DynamoEndpointId("dynamo", "backend", "generate"), iid))
        .isEqualTo("17216e63492ef21f/dynamo/backend/generate");
    assertThat(TcpEndpointPaths.instancePath(new DynamoEndpointId("n", "a/b", "c%2Fd"), 0xab))
        .isEqualTo("ab/n/a%2Fb/c%252Fd");
    assertThat(TcpEndpointPaths.unescapeSegment("c%252Fd")).isEqualTo("c%2Fd");
    assertThat(TcpEndpointPaths.unescapeSegment("a%2Fb")).isEqualTo("a/b");
  }

  @Test
  void parseSplitsAtTheFirstSlashAndKeepsTheRestVerbatim() {
    assertThat(TcpEndpointPaths.parse("10.1.2.3:9999/generate"))
        .isEqualTo(new TcpEndpointPaths.Address("10.1.2.3", 9999, "generate"));
    assertThat(TcpEndpointPaths.parse("tcp://10.1.2.3:9999/ab/ns/a%2Fb/ep"))
        .isEqualTo(new TcpEndpointPaths.Address("10.1.2.3", 9999, "ab/ns/a%2Fb/ep"));
    TcpEndpointPaths.Address v6 = TcpEndpointPaths.parse("[fd00::1]:7000/x/y");
    assertThat(v6).isEqualTo(new TcpEndpointPaths.Address("fd00::1", 7000, "x/y"));
    assertThat(v6.hostPort()).isEqualTo("[fd00::1]:7000");
    assertThat(TcpEndpointPaths.parse("worker-0.svc:9999/e").host()).isEqualTo("worker-0.svc");
    for (String bad : new String[] {"10.1.2.3:9999", "10.1.2.3/x", ":9/x", "h:0/x", "h:65536/x", "h:x/y", "[::1/x", "fd00::1:9/x"}) {
      assertThatThrownBy(() -> TcpEndpointPaths.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void queryPathIsVerbatimForTheQueryInstanceElseTheLastSegmentIsReplaced() {
    String path = "ab/dynamo/backend/worker_kv_indexer_query_dp0";
    assertThat(TcpEndpointPaths.queryPath(path, "worker_kv_indexer_query_dp0", "worker_kv_indexer_query_dp0")).isSameAs(path);
    assertThat(TcpEndpointPaths.queryPath("ab/dynamo/backend/generate", "generate", "worker_kv_indexer_query_dp3_worker9"))
        .isEqualTo("ab/dynamo/backend/worker_kv_indexer_query_dp3_worker9");
    assertThat(TcpEndpointPaths.queryPath("generate", "generate", "worker_kv_indexer_query_dp1"))
        .isEqualTo("worker_kv_indexer_query_dp1");
  }
}
