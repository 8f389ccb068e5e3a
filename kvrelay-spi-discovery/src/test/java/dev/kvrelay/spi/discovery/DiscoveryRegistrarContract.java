package dev.kvrelay.spi.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Not thread-safe: one test at a time. The contract every {@link DiscoveryRegistrar} passes (JCTools style: each
 * backend's test subclasses it): what a registrar writes, replaces and withdraws is what the store holds, read back
 * through the store's own client (never through the backend), and closing withdraws the rest.
 */
@Timeout(120)
public abstract class DiscoveryRegistrarContract {
  private static final Duration WAIT = Duration.ofSeconds(20);

  /** Not thread-safe: driven by one test; the store behind the backend and an independent reader of it. */
  public interface RegistrarWorld extends AutoCloseable {
    /** The backend under test. */
    DiscoveryBackend backend();

    /** Everything the store holds now, read with the store's own client (etcd client, API server, files). */
    Map<DiscoveryKey, DiscoveryRecord> stored() throws Exception;

    @Override
    void close() throws Exception;
  }

  /** A fresh world with an empty store. */
  protected abstract RegistrarWorld newWorld() throws Exception;

  private RegistrarWorld world;
  private DiscoveryRegistrar registrar;

  @BeforeEach
  void open() throws Exception {
    world = newWorld();
    registrar = world.backend().registrar();
  }

  @AfterEach
  void close() throws Exception {
    if (registrar != null) {
      registrar.close();
    }
    world.close();
  }

  private void awaitStored(String what, Predicate<Map<DiscoveryKey, DiscoveryRecord>> condition) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    Map<DiscoveryKey, DiscoveryRecord> last;
    while (true) {
      last = world.stored();
      if (condition.test(last)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(what + " not stored in time; the store holds " + last.keySet());
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  private List<DiscoveryRecord> own() {
    long id = registrar.instanceId();
    return List.of(
        TestRecords.endpoint("reg", "relay", "status", id, "127.0.0.1:9999/status"),
        TestRecords.model("reg", "relay", "status", id, null, "Qwen/Qwen3-0.6B"),
        TestRecords.eventSource("reg", "relay", "status", 0x1234_5678_9ABCL, id, 0));
  }

  @Test
  void registeredRecordsAreStoredExactly() throws Exception {
    for (DiscoveryRecord r : own()) {
      registrar.register(r);
    }
    awaitStored("the three records", s -> s.equals(TestRecords.byKey(own())));
  }

  @Test
  void registeringAgainReplacesTheValue() throws Exception {
    ModelRecord card = (ModelRecord) own().get(1);
    registrar.register(card);
    ModelRecord tainted = card.withTaints(List.of("maintenance"));
    registrar.register(tainted);
    awaitStored("the replaced card", s -> s.size() == 1 && tainted.equals(s.get(card.key())));
  }

  @Test
  void deregisterWithdrawsOnlyThatKeyAndReportsWhetherItWasRegistered() throws Exception {
    for (DiscoveryRecord r : own()) {
      registrar.register(r);
    }
    DiscoveryKey gone = own().get(0).key();
    assertThat(registrar.deregister(gone)).isTrue();
    awaitStored("two records left", s -> s.equals(TestRecords.byKey(own().subList(1, 3))));
    assertThat(registrar.deregister(gone)).as("already withdrawn").isFalse();
  }

  @Test
  void aRecordOfAnotherInstanceIsRefusedAndNothingIsStored() throws Exception {
    long other = registrar.instanceId() ^ 1;
    DiscoveryRecord foreign = TestRecords.endpoint("reg", "relay", "status", other, "127.0.0.1:9999/status");
    assertThatThrownBy(() -> registrar.register(foreign)).isInstanceOfSatisfying(DiscoveryException.class,
        e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.INVALID_CONFIGURATION));
    registrar.register(own().get(1)); // barrier: a later write is visible, the refused one must not be
    awaitStored("the barrier card", s -> s.containsKey(own().get(1).key()));
    assertThat(world.stored()).doesNotContainKey(foreign.key());
  }

  @Test
  void closingWithdrawsEverythingAndLaterUseIsClosed() throws Exception {
    for (DiscoveryRecord r : own()) {
      registrar.register(r);
    }
    awaitStored("the three records", s -> s.size() == 3);
    registrar.close();
    registrar.close(); // idempotent
    awaitStored("nothing", Map::isEmpty);
    assertThatThrownBy(() -> registrar.register(own().get(0))).isInstanceOfSatisfying(DiscoveryException.class,
        e -> assertThat(e.kind()).isEqualTo(DiscoveryException.Kind.CLOSED));
  }
}
