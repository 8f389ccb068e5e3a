package dev.kvrelay.grpc.wire;

import static dev.kvrelay.grpc.wire.IdentityCodec.CONTRACT_MARKER_BITS;
import static dev.kvrelay.grpc.wire.IdentityCodec.PROTOCOL_VERSION;
import static dev.kvrelay.grpc.wire.IdentityCodec.envelope;
import static dev.kvrelay.grpc.wire.IdentityCodec.fromProto;
import static dev.kvrelay.grpc.wire.IdentityCodec.producer;
import static dev.kvrelay.grpc.wire.IdentityCodec.toProto;

import dev.kvrelay.api.WireText;
import dev.kvrelay.api.WireValidationException;
import dev.kvrelay.engine.wire.DataStatus;
import dev.kvrelay.engine.wire.ServingLoadView;
import dev.kvrelay.grpc.proto.LoadView;
import dev.kvrelay.grpc.proto.ModelDeploymentStatus;
import dev.kvrelay.grpc.proto.ModelServingLoad;
import dev.kvrelay.grpc.proto.PoolDeploymentStatus;
import dev.kvrelay.grpc.proto.PoolServingLoad;
import dev.kvrelay.grpc.proto.ProducerIdentity;
import dev.kvrelay.grpc.proto.RequestLifecycleStats;
import dev.kvrelay.grpc.proto.ServingLoadUpdate;
import dev.kvrelay.grpc.proto.TokenLoadStats;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Immutable (stateless): the codec of the serving-load family — {@code ServingLoadUpdate} windows, decoded with
 * their window and entry rules (wan-grpc.md §1.7, §4.2).
 */
final class ServingLoadCodec {
  private ServingLoadCodec() {}

  /** {@code ServingLoadUpdate} for a published window of {@code relay}. */
  static ServingLoadUpdate encodeWindow(
      dev.kvrelay.api.RelayIdentity relay, dev.kvrelay.engine.wire.ServingLoadUpdate window) {
    ServingLoadUpdate.Builder b = ServingLoadUpdate.newBuilder()
        .setProtocolVersion(PROTOCOL_VERSION)
        .setRelay(toProto(relay))
        .setWindowSequence(window.windowSequence())
        .setObservedMs(window.observedMs())
        .setWindowMs(window.windowMs())
        .setContractMarker(CONTRACT_MARKER_BITS);
    for (dev.kvrelay.engine.wire.PoolServingLoad p : window.pools()) {
      PoolDeploymentStatus.Builder d = PoolDeploymentStatus.newBuilder();
      p.deployment().liveWorkers().ifPresent(d::setLiveWorkers);
      p.deployment().maxConcurrency().ifPresent(d::setMaxConcurrency);
      b.addPools(PoolServingLoad.newBuilder()
          .setProducer(toProto(p.producer())).setLoad(encodeView(p.load())).setDeployment(d));
    }
    for (dev.kvrelay.engine.wire.ModelServingLoad m : window.models()) {
      ModelDeploymentStatus.Builder d = ModelDeploymentStatus.newBuilder()
          .setExpectedFrontends(m.deployment().expectedFrontends())
          .setObservedFrontends(m.deployment().observedFrontends())
          .setReadyFrontends(m.deployment().readyFrontends());
      for (dev.kvrelay.api.KvPoolId pool : m.deployment().servingPools()) {
        d.addServingPools(toProto(pool));
      }
      b.addModels(ModelServingLoad.newBuilder()
          .setNamespace(m.namespace()).setCanonicalModelId(m.canonicalModelId())
          .setLoad(encodeView(m.load())).setDeployment(d));
    }
    return b.build();
  }

  private static LoadView encodeView(ServingLoadView view) {
    LoadView.Builder b = LoadView.newBuilder()
        .setStatusValue(view.status().wireValue())
        .setSourceObservedMs(view.sourceObservedMs());
    view.requests().ifPresent(r -> {
      RequestLifecycleStats.Builder rb = RequestLifecycleStats.newBuilder()
          .setRequestsStartedTotal(r.requestsStartedTotal())
          .setRequestsCompletedTotal(r.requestsCompletedTotal())
          .setRequestsFailedTotal(r.requestsFailedTotal())
          .setRequestsCancelledTotal(r.requestsCancelledTotal());
      r.requestsAwaitingFirstToken().ifPresent(rb::setRequestsAwaitingFirstToken);
      r.requestsGenerating().ifPresent(rb::setRequestsGenerating);
      b.setRequests(rb);
    });
    dev.kvrelay.engine.wire.TokenLoadStats t = view.tokens();
    TokenLoadStats.Builder tb = TokenLoadStats.newBuilder();
    t.activePrefillTokens().ifPresent(tb::setActivePrefillTokens);
    t.activeDecodeBlocks().ifPresent(tb::setActiveDecodeBlocks);
    t.awaitingFirstTokenInputTokens().ifPresent(tb::setAwaitingFirstTokenInputTokens);
    t.inflightInputTokens().ifPresent(tb::setInflightInputTokens);
    t.inputTokensTotal().ifPresent(tb::setInputTokensTotal);
    t.outputTokensTotal().ifPresent(tb::setOutputTokensTotal);
    return b.setTokens(tb).build();
  }

  /**
   * A received serving-load window (wan-grpc.md §1.7), validated. Window rules first: the envelope
   * ({@link WireEnvelope#check()}); each pool's producer present and not malformed (an unsupported producer
   * quarantines only its entry); no producer key twice; each model's namespace and canonical model id valid
   * text, no key twice. Any of these makes the whole window unusable. Then each entry on its own: status
   * (UNSPECIFIED malformed, unknown unsupported), the presence rules of its kind, required sub-messages,
   * serving pools valid and unique; a failing entry is left out and listed.
   *
   * @throws WireValidationException the first broken window rule
   */
  static ServingLoadWindow decodeWindow(ServingLoadUpdate update) throws WireValidationException {
    dev.kvrelay.api.RelayIdentity relay =
        envelope(update.getProtocolVersion(), update.getContractMarker(), update.hasRelay() ? update.getRelay() : null)
            .check();
    List<dev.kvrelay.api.@Nullable ProducerIdentity> producers = new ArrayList<>(update.getPoolsCount());
    List<ExcludedEntry> excludedPools = new ArrayList<>();
    Set<dev.kvrelay.api.ProducerIdentity> keys = new HashSet<>();
    for (int i = 0; i < update.getPoolsCount(); i++) {
      PoolServingLoad p = update.getPools(i);
      if (!p.hasProducer()) {
        throw WireValidationException.malformed("pools[" + i + "].producer", "pool producer is missing");
      }
      try {
        dev.kvrelay.api.ProducerIdentity producer = producer(p.getProducer());
        if (!keys.add(producer)) {
          throw WireValidationException.malformed("pools[" + i + "].producer", "duplicate producer " + producer);
        }
        producers.add(producer);
      } catch (WireValidationException e) {
        if (!e.isUnsupported()) {
          throw e;
        }
        producers.add(null);
        excludedPools.add(ExcludedEntry.of(i, e));
      }
    }
    Set<List<String>> modelKeys = new HashSet<>();
    for (int i = 0; i < update.getModelsCount(); i++) {
      ModelServingLoad m = update.getModels(i);
      String namespace = WireText.check("models[" + i + "].namespace", m.getNamespace());
      String model = WireText.check("models[" + i + "].canonical_model_id", m.getCanonicalModelId());
      if (!modelKeys.add(List.of(namespace, model))) {
        throw WireValidationException.malformed("models[" + i + "]", "duplicate model (" + namespace + ", " + model + ")");
      }
    }
    List<dev.kvrelay.engine.wire.PoolServingLoad> pools = new ArrayList<>(update.getPoolsCount());
    for (int i = 0; i < update.getPoolsCount(); i++) {
      dev.kvrelay.api.ProducerIdentity producer = producers.get(i);
      if (producer == null) {
        continue;
      }
      try {
        pools.add(poolEntry(producer, update.getPools(i)));
      } catch (WireValidationException e) {
        excludedPools.add(ExcludedEntry.of(i, e));
      }
    }
    excludedPools.sort((a, b) -> Integer.compare(a.index(), b.index()));
    List<dev.kvrelay.engine.wire.ModelServingLoad> models = new ArrayList<>(update.getModelsCount());
    List<ExcludedEntry> excludedModels = new ArrayList<>();
    for (int i = 0; i < update.getModelsCount(); i++) {
      try {
        models.add(modelEntry(update.getModels(i)));
      } catch (WireValidationException e) {
        excludedModels.add(ExcludedEntry.of(i, e));
      }
    }
    return new ServingLoadWindow(relay, new dev.kvrelay.engine.wire.ServingLoadUpdate(update.getWindowSequence(),
        update.getObservedMs(), update.getWindowMs(), pools, models), excludedPools, excludedModels);
  }

  private static dev.kvrelay.engine.wire.PoolServingLoad poolEntry(
      dev.kvrelay.api.ProducerIdentity producer, PoolServingLoad p) throws WireValidationException {
    if (!p.hasLoad()) {
      throw WireValidationException.malformed("load", "pool load view is missing");
    }
    LoadView load = p.getLoad();
    DataStatus status = DataStatus.fromWire(load.getStatusValue());
    boolean complete = status == DataStatus.COMPLETE;
    if (load.hasRequests()) {
      throw WireValidationException.malformed("load.requests", "a pool view carries no request stats");
    }
    if (!load.hasTokens()) {
      throw WireValidationException.malformed("load.tokens", "pool token load is missing");
    }
    TokenLoadStats t = load.getTokens();
    presence("load.tokens.active_prefill_tokens", t.hasActivePrefillTokens(), complete);
    presence("load.tokens.active_decode_blocks", t.hasActiveDecodeBlocks(), complete);
    presence("load.tokens.awaiting_first_token_input_tokens", t.hasAwaitingFirstTokenInputTokens(), false);
    presence("load.tokens.inflight_input_tokens", t.hasInflightInputTokens(), false);
    presence("load.tokens.input_tokens_total", t.hasInputTokensTotal(), false);
    presence("load.tokens.output_tokens_total", t.hasOutputTokensTotal(), false);
    if (!p.hasDeployment()) {
      throw WireValidationException.malformed("deployment", "pool deployment status is missing");
    }
    PoolDeploymentStatus d = p.getDeployment();
    try {
      return new dev.kvrelay.engine.wire.PoolServingLoad(producer,
          new ServingLoadView(Optional.empty(), decodeTokens(t), status, load.getSourceObservedMs()),
          new dev.kvrelay.engine.wire.PoolDeploymentStatus(
              d.hasLiveWorkers() ? OptionalLong.of(d.getLiveWorkers()) : OptionalLong.empty(),
              d.hasMaxConcurrency() ? OptionalLong.of(d.getMaxConcurrency()) : OptionalLong.empty()));
    } catch (IllegalArgumentException e) {
      throw WireValidationException.malformed("deployment", String.valueOf(e.getMessage()));
    }
  }

  private static dev.kvrelay.engine.wire.ModelServingLoad modelEntry(ModelServingLoad m)
      throws WireValidationException {
    if (!m.hasLoad()) {
      throw WireValidationException.malformed("load", "model load view is missing");
    }
    LoadView load = m.getLoad();
    DataStatus status = DataStatus.fromWire(load.getStatusValue());
    boolean complete = status == DataStatus.COMPLETE;
    if (!load.hasRequests()) {
      throw WireValidationException.malformed("load.requests", "model request counts are missing");
    }
    RequestLifecycleStats r = load.getRequests();
    presence("load.requests.requests_awaiting_first_token", r.hasRequestsAwaitingFirstToken(), complete);
    presence("load.requests.requests_generating", r.hasRequestsGenerating(), complete);
    if (!load.hasTokens()) {
      throw WireValidationException.malformed("load.tokens", "model token load is missing");
    }
    TokenLoadStats t = load.getTokens();
    presence("load.tokens.awaiting_first_token_input_tokens", t.hasAwaitingFirstTokenInputTokens(), complete);
    presence("load.tokens.inflight_input_tokens", t.hasInflightInputTokens(), complete);
    presence("load.tokens.input_tokens_total", t.hasInputTokensTotal(), true);
    presence("load.tokens.output_tokens_total", t.hasOutputTokensTotal(), true);
    presence("load.tokens.active_prefill_tokens", t.hasActivePrefillTokens(), false);
    presence("load.tokens.active_decode_blocks", t.hasActiveDecodeBlocks(), false);
    if (!m.hasDeployment()) {
      throw WireValidationException.malformed("deployment", "model deployment status is missing");
    }
    ModelDeploymentStatus d = m.getDeployment();
    List<dev.kvrelay.api.KvPoolId> servingPools = new ArrayList<>(d.getServingPoolsCount());
    for (int i = 0; i < d.getServingPoolsCount(); i++) {
      dev.kvrelay.api.KvPoolId pool = dev.kvrelay.api.KvPoolId.fromWire(fromProto(d.getServingPools(i)));
      if (servingPools.contains(pool)) {
        throw WireValidationException.malformed("deployment.serving_pools[" + i + "]", "duplicate serving pool " + pool);
      }
      servingPools.add(pool);
    }
    try {
      return new dev.kvrelay.engine.wire.ModelServingLoad(m.getNamespace(), m.getCanonicalModelId(),
          new ServingLoadView(Optional.of(new dev.kvrelay.engine.wire.RequestLifecycleStats(
              r.getRequestsStartedTotal(), r.getRequestsCompletedTotal(), r.getRequestsFailedTotal(),
              r.getRequestsCancelledTotal(), optional(r.hasRequestsAwaitingFirstToken(), r.getRequestsAwaitingFirstToken()),
              optional(r.hasRequestsGenerating(), r.getRequestsGenerating()))),
              decodeTokens(t), status, load.getSourceObservedMs()),
          new dev.kvrelay.engine.wire.ModelDeploymentStatus(
              d.getExpectedFrontends(), d.getObservedFrontends(), d.getReadyFrontends(), servingPools));
    } catch (IllegalArgumentException e) {
      // the engine's remaining consistency rule: status vs frontend counts (§4.2)
      throw WireValidationException.malformed("deployment", String.valueOf(e.getMessage()));
    }
  }

  private static dev.kvrelay.engine.wire.TokenLoadStats decodeTokens(TokenLoadStats t) {
    return new dev.kvrelay.engine.wire.TokenLoadStats(
        optional(t.hasActivePrefillTokens(), t.getActivePrefillTokens()),
        optional(t.hasActiveDecodeBlocks(), t.getActiveDecodeBlocks()),
        optional(t.hasAwaitingFirstTokenInputTokens(), t.getAwaitingFirstTokenInputTokens()),
        optional(t.hasInflightInputTokens(), t.getInflightInputTokens()),
        optional(t.hasInputTokensTotal(), t.getInputTokensTotal()),
        optional(t.hasOutputTokensTotal(), t.getOutputTokensTotal()));
  }

  private static OptionalLong optional(boolean present, long value) {
    return present ? OptionalLong.of(value) : OptionalLong.empty();
  }

  private static void presence(String field, boolean present, boolean required) throws WireValidationException {
    if (present != required) {
      throw WireValidationException.malformed(field, required ? "must be set" : "must not be set");
    }
  }
}
