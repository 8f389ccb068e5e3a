package dev.kvrelay.launcher.inspect;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Not thread-safe: confined to the inspect command's thread. A connection to a relay that learns the
 * {@code dynamo.kvrelay.v1.KvEventRelay} schema from the relay's own reflection service (v1), as grpcurl does,
 * and calls its methods with {@link DynamicMessage}s (requests parsed from proto3 JSON, responses printed as proto3
 * JSON by {@link JsonFormat}, wan-grpc §1).
 */
final class ReflectedRelay implements AutoCloseable {
  /** The relay service's full name. */
  static final String SERVICE = "dynamo.kvrelay.v1.KvEventRelay";
  /** The decimal contract marker every request carries (KVR1, wan-grpc §1). */
  static final long CONTRACT_MARKER = 0x4B56_5231L;

  private final ManagedChannel channel;
  private final ServiceDescriptor service;
  private final JsonFormat.Printer printer;
  private final JsonFormat.Parser parser;

  private ReflectedRelay(ManagedChannel channel, ServiceDescriptor service) {
    this.channel = channel;
    this.service = service;
    JsonFormat.TypeRegistry types = JsonFormat.TypeRegistry.newBuilder().add(service.getFile().getMessageTypes())
        .build();
    this.printer = JsonFormat.printer().usingTypeRegistry(types);
    this.parser = JsonFormat.parser().usingTypeRegistry(types);
  }

  /**
   * Takes {@code channel} (the caller's options: credentials, inbound limit, authority) and resolves the relay
   * service by reflection; {@link #close()} shuts the channel down, and so does a failure here.
   *
   * @throws InspectException the reflection call's status, or a schema the relay does not serve
   */
  static ReflectedRelay connect(ManagedChannel channel) throws InspectException {
    try {
      return new ReflectedRelay(channel, resolve(channel));
    } catch (InspectException | RuntimeException e) {
      channel.shutdownNow();
      throw e;
    }
  }

  private static ServiceDescriptor resolve(ManagedChannel channel) throws InspectException {
    CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS).serverReflectionInfo(new StreamObserver<>() {
          @Override
          public void onNext(ServerReflectionResponse value) {
            answer.complete(value);
          }

          @Override
          public void onError(Throwable t) {
            answer.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
            answer.completeExceptionally(new IllegalStateException("reflection ended without an answer"));
          }
        });
    requests.onNext(ServerReflectionRequest.newBuilder().setFileContainingSymbol(SERVICE).build());
    ServerReflectionResponse response;
    try {
      response = answer.get(15, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw InspectException.of("reflection", e.getCause());
    } catch (TimeoutException e) {
      throw new InspectException("reflection", Status.Code.DEADLINE_EXCEEDED, "", "no reflection answer in 15 s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InspectException("reflection", Status.Code.CANCELLED, "", "interrupted");
    } finally {
      requests.onCompleted();
    }
    if (response.hasErrorResponse()) {
      throw new InspectException("reflection", Status.fromCodeValue(response.getErrorResponse().getErrorCode())
          .getCode(), "", response.getErrorResponse().getErrorMessage());
    }
    Map<String, FileDescriptorProto> protos = new LinkedHashMap<>();
    try {
      for (ByteString bytes : response.getFileDescriptorResponse().getFileDescriptorProtoList()) {
        FileDescriptorProto p = FileDescriptorProto.parseFrom(bytes);
        protos.put(p.getName(), p);
      }
      Map<String, FileDescriptor> built = new HashMap<>();
      for (FileDescriptorProto p : protos.values()) {
        FileDescriptor f = build(p, protos, built);
        ServiceDescriptor s = f.getPackage().isEmpty() ? null : f.findServiceByName(SERVICE.substring(
            SERVICE.lastIndexOf('.') + 1));
        if (s != null && s.getFullName().equals(SERVICE)) {
          return s;
        }
      }
    } catch (InvalidProtocolBufferException | DescriptorValidationException e) {
      throw new InspectException("reflection", Status.Code.INTERNAL, "", "bad descriptor: " + e.getMessage());
    }
    throw new InspectException("reflection", Status.Code.NOT_FOUND, "", SERVICE + " is not served");
  }

  private static FileDescriptor build(FileDescriptorProto p, Map<String, FileDescriptorProto> protos,
      Map<String, FileDescriptor> built) throws DescriptorValidationException, InspectException {
    FileDescriptor done = built.get(p.getName());
    if (done != null) {
      return done;
    }
    FileDescriptor[] deps = new FileDescriptor[p.getDependencyCount()];
    for (int i = 0; i < deps.length; i++) {
      FileDescriptorProto d = protos.get(p.getDependency(i));
      if (d == null) {
        throw new InspectException("reflection", Status.Code.NOT_FOUND, "",
            p.getName() + " needs " + p.getDependency(i) + ", which reflection did not send");
      }
      deps[i] = build(d, protos, built);
    }
    FileDescriptor f = FileDescriptor.buildFrom(p, deps);
    built.put(p.getName(), f);
    return f;
  }

  /** The method {@code name} of the relay service. */
  MethodDescriptor method(String name) throws InspectException {
    MethodDescriptor m = service.findMethodByName(name);
    if (m == null) {
      throw new InspectException(name, Status.Code.UNIMPLEMENTED, "", SERVICE + "/" + name + " is not served");
    }
    return m;
  }

  /** A request for {@code method} parsed from proto3 JSON. */
  DynamicMessage request(MethodDescriptor method, String json) throws InspectException {
    DynamicMessage.Builder b = DynamicMessage.newBuilder(method.getInputType());
    try {
      parser.merge(json, b);
    } catch (InvalidProtocolBufferException e) {
      throw new InspectException(method.getName(), Status.Code.INVALID_ARGUMENT, "", e.getMessage());
    }
    return b.build();
  }

  /** The standard request of the relay's methods: the marker and, for streams, {@code subscriberId}. */
  DynamicMessage standardRequest(MethodDescriptor method, String subscriberId) throws InspectException {
    String json = method.isServerStreaming()
        ? "{\"contractMarker\":" + CONTRACT_MARKER + ",\"subscriberId\":\"" + subscriberId + "\"}"
        : "{\"contractMarker\":" + CONTRACT_MARKER + "}";
    return request(method, json);
  }

  /** proto3 JSON of {@code message}, as grpcurl prints it (2-space indent, default values omitted). */
  String json(DynamicMessage message) {
    try {
      return printer.print(message);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("unprintable " + message.getDescriptorForType().getFullName(), e);
    }
  }

  /** A unary call with a deadline. */
  DynamicMessage unary(MethodDescriptor method, DynamicMessage request) throws InspectException {
    try {
      return ClientCalls.blockingUnaryCall(channel, grpcMethod(method),
          CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request);
    } catch (StatusRuntimeException e) {
      throw InspectException.of(method.getName(), e);
    }
  }

  /**
   * A server-streaming call; the iterator's {@code next} throws {@link StatusRuntimeException} on the call's
   * error. Closing the returned handle cancels the call.
   */
  Streaming stream(MethodDescriptor method, DynamicMessage request) {
    ClientCall<DynamicMessage, DynamicMessage> call = channel.newCall(grpcMethod(method), CallOptions.DEFAULT);
    Iterator<DynamicMessage> it = ClientCalls.blockingServerStreamingCall(call, request);
    return new Streaming(call, it);
  }

  /**
   * Not thread-safe: confined to the inspect command's thread. One open server stream.
   *
   * @param call the call, cancelled by {@link #close()}
   * @param messages its messages
   */
  record Streaming(ClientCall<DynamicMessage, DynamicMessage> call, Iterator<DynamicMessage> messages)
      implements AutoCloseable {
    @Override
    public void close() {
      call.cancel("inspect done", null);
    }
  }

  private static io.grpc.MethodDescriptor<DynamicMessage, DynamicMessage> grpcMethod(MethodDescriptor m) {
    return io.grpc.MethodDescriptor.<DynamicMessage, DynamicMessage>newBuilder()
        .setType(m.isServerStreaming() ? io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING
            : io.grpc.MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(io.grpc.MethodDescriptor.generateFullMethodName(m.getService().getFullName(), m.getName()))
        .setRequestMarshaller(ProtoUtils.marshaller(DynamicMessage.getDefaultInstance(m.getInputType())))
        .setResponseMarshaller(ProtoUtils.marshaller(DynamicMessage.getDefaultInstance(m.getOutputType())))
        .build();
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
