package dev.kvrelay.engine;

import dev.kvrelay.api.RelayException;
import dev.kvrelay.engine.stream.AdmissionPermit;
import dev.kvrelay.engine.wire.RelayStream;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe as its delegate: a pool stream that gives back its total-pool-stream permit when it is
 * closed or has finished.
 */
final class PermitStream<T> implements RelayStream<T> {
  private final RelayStream<T> delegate;
  private final AdmissionPermit permit;

  PermitStream(RelayStream<T> delegate, AdmissionPermit permit) {
    this.delegate = delegate;
    this.permit = permit;
  }

  @Override
  public @Nullable T poll() throws RelayException {
    try {
      return delegate.poll();
    } finally {
      releaseIfFinished();
    }
  }

  @Override
  public @Nullable T poll(long timeout, TimeUnit unit) throws RelayException, InterruptedException {
    try {
      return delegate.poll(timeout, unit);
    } finally {
      releaseIfFinished();
    }
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
    permit.close();
  }

  private void releaseIfFinished() {
    if (delegate.isFinished()) {
      permit.close();
    }
  }
}
