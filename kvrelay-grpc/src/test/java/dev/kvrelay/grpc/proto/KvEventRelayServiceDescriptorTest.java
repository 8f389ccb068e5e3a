package dev.kvrelay.grpc.proto;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** wan-grpc.md §1.2: the generated service lists exactly the six RPCs with their shapes and full names. */
class KvEventRelayServiceDescriptorTest {

  private static final String SERVICE = "dynamo.kvrelay.v1.KvEventRelay";

  @Test
  void generatedServiceHasExactlyTheSixRpcsWithTheirStreamingShapes() {
    ServiceDescriptor service = KvEventRelayGrpc.getServiceDescriptor();
    assertThat(service.getName()).isEqualTo(SERVICE);
    Map<String, MethodDescriptor.MethodType> methods = new TreeMap<>();
    for (MethodDescriptor<?, ?> m : service.getMethods()) {
      methods.put(m.getFullMethodName(), m.getType());
    }
    assertThat(methods).containsExactlyInAnyOrderEntriesOf(Map.of(
        SERVICE + "/GetRelayInfo", MethodDescriptor.MethodType.UNARY,
        SERVICE + "/WatchKvPoolCatalog", MethodDescriptor.MethodType.SERVER_STREAMING,
        SERVICE + "/SubscribeKvPool", MethodDescriptor.MethodType.SERVER_STREAMING,
        SERVICE + "/SubscribeServingReadiness", MethodDescriptor.MethodType.SERVER_STREAMING,
        SERVICE + "/SubscribeKvPoolLoad", MethodDescriptor.MethodType.SERVER_STREAMING,
        SERVICE + "/SubscribeServingLoad", MethodDescriptor.MethodType.SERVER_STREAMING));
  }

  @Test
  void methodPathsAreSlashServiceSlashRpc() {
    assertThat("/" + KvEventRelayGrpc.getSubscribeServingLoadMethod().getFullMethodName())
        .isEqualTo("/dynamo.kvrelay.v1.KvEventRelay/SubscribeServingLoad");
    assertThat(KvEventRelayGrpc.getGetRelayInfoMethod().getFullMethodName())
        .isEqualTo("dynamo.kvrelay.v1.KvEventRelay/GetRelayInfo");
  }

  @Test
  void rpcRequestAndResponseTypesFollowTheSpecTable() {
    Descriptors.ServiceDescriptor service = RelayProto.getDescriptor().findServiceByName("KvEventRelay");
    Map<String, String> shapes = new TreeMap<>();
    for (Descriptors.MethodDescriptor m : service.getMethods()) {
      shapes.put(m.getName(), m.getInputType().getName() + " -> " + (m.isServerStreaming() ? "stream " : "")
          + m.getOutputType().getName() + (m.isClientStreaming() ? " (client streaming)" : ""));
    }
    assertThat(shapes).containsExactlyInAnyOrderEntriesOf(Map.of(
        "GetRelayInfo", "RelayInfoRequest -> RelayInfo",
        "WatchKvPoolCatalog", "WatchKvPoolCatalogRequest -> stream KvPoolCatalogUpdate",
        "SubscribeKvPool", "SubscribeKvPoolRequest -> stream FilterUpdate",
        "SubscribeServingReadiness", "SubscribeServingReadinessRequest -> stream ServingReadinessUpdate",
        "SubscribeKvPoolLoad", "SubscribeKvPoolLoadRequest -> stream KvPoolLoadUpdate",
        "SubscribeServingLoad", "SubscribeServingLoadRequest -> stream ServingLoadUpdate"));
  }

  @Test
  void packageIsDynamoKvrelayV1AndKvPoolLoadEntryReservesSixToTwelve() {
    // Decision (wan-grpc.md §1.6): reserve the removed KvPoolLoadEntry fields 6-12 rather than copy as-is.
    Descriptors.FileDescriptor file = RelayProto.getDescriptor();
    assertThat(file.getPackage()).isEqualTo("dynamo.kvrelay.v1");
    Descriptors.Descriptor entry = KvPoolLoadEntry.getDescriptor();
    assertThat(entry.getFields()).hasSize(5);
    for (int n = 6; n <= 12; n++) {
      assertThat(entry.isReservedNumber(n)).as("field %d reserved", n).isTrue();
    }
    assertThat(entry.isReservedNumber(13)).isFalse();
  }
}
