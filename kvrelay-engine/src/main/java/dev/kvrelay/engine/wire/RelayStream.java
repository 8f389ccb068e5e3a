package dev.kvrelay.engine.wire;

import dev.kvrelay.api.RelayException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe for one consuming thread at a time plus any producing threads: the subscriber's end of one
 * relay stream (catalog, pool frames, readiness, load windows), delivering exactly the messages the WAN
 * carries, in order. It is pull-based so that a transport can follow its own backpressure (gRPC's
 * {@code isReady}/{@code onReady}): nothing is pushed at a consumer that does not ask.
 *
 * <p>Termination: a stream ends cleanly (then {@link #poll()} returns null and {@link #isFinished()} is true)
 * or with a {@link RelayException} whose reason is what a remote consumer reads from the trailer; the error is
 * thrown by the first poll after every message queued before it was taken, and by every poll after that.
 *
 * @param <T> the message type
 */
public interface RelayStream<T> extends AutoCloseable {

  /**
   * The next message if one is ready now, else null (also null once finished cleanly).
   *
   * @throws RelayException once the stream has ended with an error and everything before it was taken
   */
  @Nullable T poll() throws RelayException;

  /**
   * Waits up to {@code timeout} for the next message; null if none came in time or the stream finished cleanly.
   *
   * @throws RelayException once the stream has ended with an error and everything before it was taken
   * @throws InterruptedException if the waiting thread is interrupted
   */
  @Nullable T poll(long timeout, TimeUnit unit) throws RelayException, InterruptedException;

  /**
   * Sets the callback run whenever a message or the termination becomes available (replacing the previous
   * one). It may run on any thread, must return quickly and must not poll re-entrantly in a way that blocks;
   * it runs at once if something is already available.
   */
  void onAvailable(Runnable callback);

  /** True once the stream has ended (cleanly or with an error) and nothing is left to take. */
  boolean isFinished();

  /** Ends the subscription from the consumer's side and releases its admission permit. Idempotent. */
  @Override
  void close();
}
