package dev.kvrelay.discovery.e2e;

/**
 * Not thread-safe: confined to the test thread. The discovery store as Dynamo workers write it, through the store's
 * own independent client (etcdctl, a fabric8 client against the mock API server, a Python file-KV writer), never
 * through the backend under test.
 */
public interface WorkerStore extends AutoCloseable {

  /**
   * Starts one worker identity (an etcd lease id, a Kubernetes pod and its CR, a Python file-KV process) and returns
   * a handle writing as that worker; its instance id is what the store assigns ({@code runtime-inputs.md} §1.1).
   */
  WorkerProcess spawn(String name) throws Exception;

  /** Stops every worker and releases the store. */
  @Override
  void close() throws Exception;

  /** Not thread-safe: confined to the test thread; one worker writing its own keys. */
  interface WorkerProcess {

    /** The worker's instance id ({@code runtime-inputs.md} §1.1), an unsigned 64-bit value. */
    long instanceId();

    /** Writes (creates or replaces) the raw JSON value at {@code path} of {@code bucket} ({@code v1/mdc}, ...). */
    void put(String bucket, String path, String json) throws Exception;

    /** Deletes the value at {@code path} of {@code bucket} (as a graceful deregistration). */
    void delete(String bucket, String path) throws Exception;
  }
}
