package dev.kvrelay.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.longs;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/** QuickTheories properties of the identity values: key equality, catalog order, text forms. */
class IdentityValueProperties {

  // ---- generators ---------------------------------------------------------------------------

  /** Digests drawn from a small alphabet so that ties on a prefix are common. */
  static Gen<byte[]> digests() {
    return longs().between(0, 3).zip(longs().all(), (lead, rest) -> {
      byte[] d = new byte[16];
      d[0] = (byte) (lead == 3 ? 0xFF : lead); // exercises unsigned comparison
      for (int i = 1; i < 9; i++) {
        d[i] = (byte) (rest >>> (8 * (i - 1)));
      }
      if ((rest & 1) == 0) {
        Arrays.fill(d, 1, 16, (byte) 0); // frequent equal tails
      }
      return d;
    });
  }

  static Gen<DigestIdentity> digestIdentities() {
    return digests().zip(arbitrary().enumValues(IdentitySource.class), DigestIdentity::new);
  }

  static Gen<Long> dcValues() {
    return arbitrary().pick(List.of(0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 42L)).mix(longs().all());
  }

  static Gen<KvPoolId> poolIds() {
    return digestIdentities().zip(digestIdentities(), dcValues(),
        (c, r, dc) -> new KvPoolId(new IndexerDomainId(c, r), DcId.of(dc)));
  }

  static Gen<CkfFormat> formats() {
    return longs().all().zip(integers().between(1, 24), (seed, log) -> CkfFormat.of(seed, 1L << log));
  }

  static Gen<ProducerIdentity> producers() {
    return poolIds().zip(longs().all(), TestGens.nonZeroLongs(), formats(), ProducerIdentity::new);
  }

  // ---- ProducerIdentity equality over 13 dimensions ----------------------------------------------

  private static ProducerIdentity withDomain(ProducerIdentity p, UnaryOperator<DigestIdentity> cache,
      UnaryOperator<DigestIdentity> routing) {
    IndexerDomainId d = p.poolId().indexerDomain();
    KvPoolId pool = new KvPoolId(
        new IndexerDomainId(cache.apply(d.cacheSemantics()), routing.apply(d.routingScope())), p.poolId().dcId());
    return new ProducerIdentity(pool, p.producerIncarnation(), p.layoutGeneration(), p.ckfFormat());
  }

  private static DigestIdentity flipByte(DigestIdentity d, int index) {
    byte[] bytes = d.digest();
    bytes[index] ^= 0x5A;
    return new DigestIdentity(bytes, d.source());
  }

  private static DigestIdentity flipSource(DigestIdentity d) {
    return new DigestIdentity(d.digest(),
        d.source() == IdentitySource.EXPLICIT ? IdentitySource.DEFAULT_DERIVED : IdentitySource.EXPLICIT);
  }

  /** {@code generation + delta}, or another non-zero value if that wraps to 0. */
  private static long otherGeneration(long generation, long delta) {
    long g = generation + delta;
    return g != 0 ? g : (generation == 1 ? 2 : 1);
  }

  @Test
  void producerIdentityEqualityChangesWithEachVariableDimension() {
    qt().withExamples(300).forAll(producers(), integers().between(0, 15), TestGens.nonZeroLongs())
        .checkAssert((p, index, delta) -> {
          ProducerIdentity copy = withDomain(p, UnaryOperator.identity(), UnaryOperator.identity());
          assertThat(copy).isEqualTo(p).hasSameHashCodeAs(p);
          CkfFormat f = p.ckfFormat();
          int otherBuckets = f.bucketCount() == 2 ? 4 : f.bucketCount() / 2;
          List<ProducerIdentity> variants = List.of(
              withDomain(p, d -> flipByte(d, index), UnaryOperator.identity()),    // cache digest
              withDomain(p, UnaryOperator.identity(), d -> flipByte(d, index)),           // routing digest
              withDomain(p, IdentityValueProperties::flipSource, UnaryOperator.identity()), // cache source
              withDomain(p, UnaryOperator.identity(), IdentityValueProperties::flipSource), // routing source
              new ProducerIdentity(new KvPoolId(p.poolId().indexerDomain(), DcId.of(p.poolId().dcId().value() + delta)),
                  p.producerIncarnation(), p.layoutGeneration(), f),                  // dc_id
              new ProducerIdentity(p.poolId(), p.producerIncarnation() + delta, p.layoutGeneration(), f),
              new ProducerIdentity(p.poolId(), p.producerIncarnation(), otherGeneration(p.layoutGeneration(), delta), f),
              new ProducerIdentity(p.poolId(), p.producerIncarnation(), p.layoutGeneration(),
                  CkfFormat.of(f.seed() + delta, f.bucketCount())),                  // seed
              new ProducerIdentity(p.poolId(), p.producerIncarnation(), p.layoutGeneration(),
                  CkfFormat.of(f.seed(), otherBuckets)));                            // bucket_count
          for (ProducerIdentity v : variants) {
            assertThat(v).isNotEqualTo(p);
          }
        });
  }

  @Test
  void fixedDimensionsCannotDifferInAValidKey() {
    // identity_version, format_version, fingerprint_bits and slots_per_bucket admit one value each:
    // a key that differs in one of them never validates, so it can never equal a valid key.
    qt().withExamples(200).forAll(producers(), integers().between(2, 1000)).checkAssert((p, other) -> {
      ProducerIdentity.Wire w = p.toWire();
      try {
        assertThat(ProducerIdentity.fromWire(w)).isEqualTo(p);
      } catch (WireValidationException e) {
        throw new AssertionError(e);
      }
      CkfFormat.Wire f = w.ckfFormat();
      List<ProducerIdentity.Wire> changed = List.of(
          new ProducerIdentity.Wire(new KvPoolId.Wire(other, w.poolId().indexerDomain(), w.poolId().dcId()),
              w.producerIncarnation(), w.layoutGeneration(), f),
          new ProducerIdentity.Wire(w.poolId(), w.producerIncarnation(), w.layoutGeneration(),
              new CkfFormat.Wire(other, f.seed(), f.bucketCount(), f.fingerprintBits(), f.slotsPerBucket())),
          new ProducerIdentity.Wire(w.poolId(), w.producerIncarnation(), w.layoutGeneration(),
              new CkfFormat.Wire(f.formatVersion(), f.seed(), f.bucketCount(), 16 + other, f.slotsPerBucket())),
          new ProducerIdentity.Wire(w.poolId(), w.producerIncarnation(), w.layoutGeneration(),
              new CkfFormat.Wire(f.formatVersion(), f.seed(), f.bucketCount(), f.fingerprintBits(), 4 + other)));
      for (ProducerIdentity.Wire c : changed) {
        WireValidationException e =
            catchThrowableOfType(WireValidationException.class, () -> ProducerIdentity.fromWire(c));
        assertThat(e).isNotNull();
        assertThat(e.kind()).isEqualTo(WireValidationException.Kind.UNSUPPORTED);
      }
    });
  }

  @Test
  void decisionPinned_relayIncarnationFencesAnIdenticalPoolLayout() {
    // Upstream test relay_incarnation_fences_an_identical_pool_layout.
    qt().withExamples(100).forAll(poolIds(), formats()).checkAssert((pool, format) ->
        assertThat(new ProducerIdentity(pool, 1, 1, format)).isNotEqualTo(new ProducerIdentity(pool, 2, 1, format)));
  }

  // ---- KvPoolId order -------------------------------------------------------------------------

  /** The catalog order written down independently: a tuple of unsigned numbers. */
  private static int modelCompare(KvPoolId a, KvPoolId b) {
    BigInteger[] ka = key(a);
    BigInteger[] kb = key(b);
    for (int i = 0; i < ka.length; i++) {
      int c = ka[i].compareTo(kb[i]);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  private static BigInteger[] key(KvPoolId p) {
    DigestIdentity c = p.indexerDomain().cacheSemantics();
    DigestIdentity r = p.indexerDomain().routingScope();
    return new BigInteger[] {
      new BigInteger(1, c.digest()), BigInteger.valueOf(c.source().wireValue()),
      new BigInteger(1, r.digest()), BigInteger.valueOf(r.source().wireValue()),
      new BigInteger(Long.toUnsignedString(p.dcId().value()))
    };
  }

  @Test
  void kvPoolIdOrderMatchesTheCatalogModelAndIsConsistentWithEquals() {
    qt().withExamples(2000).forAll(poolIds(), poolIds()).checkAssert((a, b) -> {
      assertThat(Integer.signum(a.compareTo(b))).isEqualTo(Integer.signum(modelCompare(a, b)));
      assertThat(Integer.signum(a.compareTo(b))).isEqualTo(-Integer.signum(b.compareTo(a)));
      assertThat(a.compareTo(b) == 0).isEqualTo(a.equals(b));
      assertThat(a.compareTo(a)).isZero();
    });
  }

  @Test
  void kvPoolIdOrderIsTransitive() {
    qt().withExamples(1000).forAll(poolIds(), poolIds(), poolIds()).checkAssert((a, b, c) -> {
      if (a.compareTo(b) <= 0 && b.compareTo(c) <= 0) {
        assertThat(a.compareTo(c)).isLessThanOrEqualTo(0);
      }
    });
  }

  // ---- text forms -----------------------------------------------------------------------------

  @Test
  void digestAndDcTextFormsRoundTrip() {
    qt().withExamples(500).forAll(digestIdentities(), dcValues()).checkAssert((d, dc) -> {
      String hex = d.toString();
      assertThat(hex).matches("[0-9a-f]{32}");
      assertThat(new BigInteger(hex, 16)).isEqualTo(new BigInteger(1, d.digest()));
      try {
        assertThat(DigestIdentity.parseHex(hex, d.source())).isEqualTo(d);
        String dcHex = DcId.of(dc).toString();
        assertThat(dcHex).matches("[0-9a-f]{16}");
        assertThat(new BigInteger(dcHex, 16)).isEqualTo(new BigInteger(Long.toUnsignedString(dc)));
        assertThat(DcId.parseHex(dcHex).value()).isEqualTo(dc);
      } catch (WireValidationException e) {
        throw new AssertionError(e);
      }
    });
  }

  @Test
  void poolIdTextFormIsCacheColonRoutingSlashDc() {
    qt().withExamples(500).forAll(poolIds()).checkAssert(p -> {
      String text = p.toString();
      assertThat(text).matches("[0-9a-f]{32}:[0-9a-f]{32}/[0-9a-f]{16}");
      HexFormat hex = HexFormat.of();
      assertThat(hex.parseHex(text.substring(0, 32))).isEqualTo(p.indexerDomain().cacheSemantics().digest());
      assertThat(hex.parseHex(text.substring(33, 65))).isEqualTo(p.indexerDomain().routingScope().digest());
      assertThat(Long.parseUnsignedLong(text.substring(66), 16)).isEqualTo(p.dcId().value());
      assertThat(p.indexerDomain().toString()).isEqualTo(text.substring(0, 65));
    });
  }

  @Test
  void endpointPathFormRoundTrips() {
    Gen<String> part = TestGens.validText(1, 8).map(s -> s.replace('/', '_'));
    qt().withExamples(500).forAll(part, part, part).checkAssert((n, c, e) -> {
      DynamoEndpointId id = new DynamoEndpointId(n, c, e);
      try {
        assertThat(DynamoEndpointId.parse(id.path())).isEqualTo(id);
      } catch (WireValidationException ex) {
        throw new AssertionError(ex);
      }
      assertThat(id.dottedName()).isEqualTo(n + "." + c + "." + e);
    });
  }

  @Test
  void wireShapesRoundTrip() {
    qt().withExamples(300).forAll(producers()).checkAssert(p -> {
      try {
        assertThat(ProducerIdentity.fromWire(p.toWire())).isEqualTo(p);
        assertThat(KvPoolId.fromWire(p.poolId().toWire())).isEqualTo(p.poolId());
        assertThat(CkfFormat.fromWire(p.ckfFormat().toWire())).isEqualTo(p.ckfFormat());
        assertThat(p.poolId().toWire().identityVersion()).isEqualTo(1);
      } catch (WireValidationException e) {
        throw new AssertionError(e);
      }
    });
  }

  @Test
  void digestIdentityIsDefensivelyCopied() {
    byte[] raw = new byte[16];
    DigestIdentity d = new DigestIdentity(raw, IdentitySource.EXPLICIT);
    raw[0] = 9;
    assertThat(d.digest()[0]).isZero();
    d.digest()[1] = 9;
    assertThat(d.digest()[1]).isZero();
  }
}
