package dev.kvrelay.discovery.kubernetes;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe: the mock API server's dispatcher. It records every request, hands everything to fabric8's
 * CRUD dispatcher (real list/watch semantics over an in-memory store) except two things the CRUD mode
 * lacks: server-side apply (a {@code PATCH} with {@code application/apply-patch+yaml}, applied as
 * create-or-replace of the whole object, which is what SSA does for a sole field manager that sends the
 * full object), and an armed {@code 410 Gone}: the next watch of a resource gets a watch stream whose only
 * event is the API server's {@code ERROR} Status with code 410 (an expired resource version).
 */
final class ApiDispatcher extends Dispatcher {

  /** Immutable and thread-safe: one recorded request. */
  record Call(String method, String path, @Nullable String contentType, String body, String client) {
    /** A request to replay in process (no client). */
    Call(String method, String path, @Nullable String contentType, String body) {
      this(method, path, contentType, body, "");
    }

    /** The path without the query. */
    String resourcePath() {
      int q = path.indexOf('?');
      return q < 0 ? path : path.substring(0, q);
    }

    /** The query, or empty. */
    String query() {
      int q = path.indexOf('?');
      return q < 0 ? "" : path.substring(q + 1);
    }
  }

  static final CustomResourceDefinitionContext DWM = new CustomResourceDefinitionContext.Builder()
      .withGroup(WorkerMetadataResource.GROUP).withVersion(WorkerMetadataResource.VERSION)
      .withKind(WorkerMetadataResource.KIND).withPlural(WorkerMetadataResource.PLURAL).withScope("Namespaced")
      .build();

  private static final String GONE_EVENT = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\","
      + "\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old resource version: 1 (42)\","
      + "\"reason\":\"Expired\",\"code\":410}}";

  /** The header by which the backend's client identifies itself (so its requests can be told from the writer's). */
  static final String CLIENT_HEADER = "X-Kvrelay-Test-Client";

  private final KubernetesCrudDispatcher crud = new KubernetesCrudDispatcher(List.of(DWM));
  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final AtomicReference<@Nullable GoneArm> gone = new AtomicReference<>();

  /** Immutable and thread-safe: an armed 410 for the next watch of resources whose path contains {@code pathPart}. */
  private record GoneArm(String pathPart, List<Call> beforeAnswer) {}

  /** The requests so far. */
  List<Call> calls() {
    return List.copyOf(calls);
  }

  /** Forgets the recorded requests. */
  void clearCalls() {
    calls.clear();
  }

  /**
   * Arms a 410 for the next watch whose path contains {@code pathPart} (e.g. {@code /dynamoworkermetadatas});
   * the requests {@code beforeAnswer} are applied to the store first, in process (the dispatcher runs on
   * the server's event loop, so it must not wait for HTTP), to change it while the watcher's version expires.
   */
  void armGone(String pathPart, List<Call> beforeAnswer) {
    gone.set(new GoneArm(pathPart, beforeAnswer));
  }

  /** True until the armed 410 has been sent. */
  boolean goneArmed() {
    return gone.get() != null;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    String contentType = request.getHeader("Content-Type");
    String body = request.getBody() == null ? "" : request.getBody().readString(StandardCharsets.UTF_8);
    String client = request.getHeader(CLIENT_HEADER);
    Call call = new Call(request.getMethod(), request.getPath(), contentType, body, client == null ? "" : client);
    calls.add(call);
    GoneArm arm = gone.get();
    if (arm != null && call.method().equals("GET") && call.query().contains("watch=true")
        && call.resourcePath().contains(arm.pathPart()) && gone.compareAndSet(arm, null)) {
      for (Call c : arm.beforeAnswer()) {
        crud.dispatch(new RecordedRequest("HTTP/1.1", HttpMethod.valueOf(c.method()), c.path(),
            Headers.builder().add("Content-Type", "application/json").build(),
            new Buffer(c.body().getBytes(StandardCharsets.UTF_8))));
      }
      return new MockResponse().withWebSocketUpgrade(new WebSocketListener() {
        @Override
        public void onOpen(WebSocket webSocket, Response response) {
          webSocket.send(GONE_EVENT);
        }
      });
    }
    if (call.method().equals("PATCH") && contentType != null && contentType.startsWith("application/apply-patch+yaml")) {
      return serverSideApply(call);
    }
    return crud.dispatch(new RecordedRequest("HTTP/1.1", HttpMethod.valueOf(call.method()), call.path(),
        request.getHeaders(), new Buffer(body.getBytes(StandardCharsets.UTF_8))));
  }

  private MockResponse serverSideApply(Call call) {
    if (!call.query().contains("fieldManager=") || !call.query().contains("force=true")) {
      return new MockResponse().setResponseCode(422).setBody("server-side apply needs fieldManager and force");
    }
    GenericKubernetesResource applied = serialization.unmarshal(call.body(), GenericKubernetesResource.class);
    String json = serialization.asJson(applied);
    Headers jsonHeaders = Headers.builder().add("Content-Type", "application/json").build();
    String path = call.resourcePath();
    MockResponse existing = crud.dispatch(new RecordedRequest("HTTP/1.1", HttpMethod.GET, path, jsonHeaders, new Buffer()));
    if (existing.code() == 404) {
      String collection = path.substring(0, path.lastIndexOf('/'));
      MockResponse created = crud.dispatch(new RecordedRequest("HTTP/1.1", HttpMethod.POST, collection, jsonHeaders,
          new Buffer(json.getBytes(StandardCharsets.UTF_8))));
      return created.code() == 201 ? created.setResponseCode(200) : created;
    }
    return crud.dispatch(new RecordedRequest("HTTP/1.1", HttpMethod.PUT, path, jsonHeaders,
        new Buffer(json.getBytes(StandardCharsets.UTF_8))));
  }

  @Override
  public void shutdown() {
    crud.shutdown();
  }
}
