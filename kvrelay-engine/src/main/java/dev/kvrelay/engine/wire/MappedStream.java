package dev.kvrelay.engine.wire;

import dev.kvrelay.api.RelayException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe as its delegate is: a {@link RelayStream} whose messages are those of another stream passed through a
 * pure function (no buffering, no state of its own); the end, availability and close are the delegate's.
 */
final class MappedStream<A, B> implements RelayStream<B> {
  private final RelayStream<A> delegate;
  private final Function<? super A, ? extends B> map;

  MappedStream(RelayStream<A> delegate, Function<? super A, ? extends B> map) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.map = Objects.requireNonNull(map, "map");
  }

  @Override
  public @Nullable B poll() throws RelayException {
    A a = delegate.poll();
    return a == null ? null : map.apply(a);
  }

  @Override
  public @Nullable B poll(long timeout, TimeUnit unit) throws RelayException, InterruptedException {
    A a = delegate.poll(timeout, unit);
    return a == null ? null : map.apply(a);
  }

  @Override
  public void onAvailable(Runnable callback) {
    delegate.onAvailable(callback);
  }

  @Override
  public boolean isFinished() {
    return delegate.isFinished();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
