package dev.kvrelay.engine.catalog;

import static dev.kvrelay.engine.catalog.CatalogFixtures.INCARNATION;
import static dev.kvrelay.engine.catalog.CatalogFixtures.RELAY;
import static dev.kvrelay.engine.catalog.CatalogFixtures.base;
import static dev.kvrelay.engine.catalog.CatalogFixtures.descriptor;
import static dev.kvrelay.engine.catalog.CatalogFixtures.digest;
import static dev.kvrelay.engine.catalog.CatalogFixtures.pool;
import static dev.kvrelay.engine.catalog.CatalogFixtures.producer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.api.CkfFormat;
import dev.kvrelay.api.DcId;
import dev.kvrelay.api.IdentitySource;
import dev.kvrelay.api.IndexerDomainId;
import dev.kvrelay.api.KvPoolId;
import dev.kvrelay.api.ProducerIdentity;
import dev.kvrelay.api.RelayIdentity;
import dev.kvrelay.engine.wan.CatalogSnapshot;
import dev.kvrelay.engine.wan.DescriptorException;
import dev.kvrelay.engine.wan.KvPoolDescriptor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PoolCatalogTest {

  @Test
  void newCatalogIsEmptyAtRevisionZero() {
    PoolCatalog catalog = new PoolCatalog(RELAY);
    CatalogSnapshot s = catalog.snapshot();
    assertThat(s.revision()).isZero();
    assertThat(s.pools()).isEmpty();
    assertThat(s.identity()).isEqualTo(RELAY);
  }

  /** Upstream {@code burst_attach_…}: 32 attaches give revision 32, pools in ascending PoolId order. */
  @Test
  void burstOf32AttachesGivesRevision32InPoolIdOrder() {
    PoolCatalog catalog = new PoolCatalog(RELAY);
    for (int i = 31; i >= 0; i--) {
      assertThat(catalog.upsert(descriptor(i * 8, 1 + i))).isEqualTo(UpsertOutcome.INSERTED);
    }
    CatalogSnapshot s = catalog.snapshot();
    assertThat(s.revision()).isEqualTo(32L);
    List<KvPoolId> expected = new ArrayList<>();
    for (int i = 0; i < 32; i++) {
      expected.add(pool(i * 8));
    }
    assertThat(s.pools()).extracting(KvPoolDescriptor::poolId).containsExactlyElementsOf(expected);
  }

  @Test
  void orderIsCacheDigestUnsignedThenSourceThenRoutingThenDc() {
    KvPoolId highByte = pool(0xF0);
    KvPoolId lowByte = pool(0x10);
    KvPoolId derived = new KvPoolId(new IndexerDomainId(digest(0x10, IdentitySource.DEFAULT_DERIVED),
        digest(0, IdentitySource.EXPLICIT)), DcId.of(3));
    KvPoolId laterRouting = new KvPoolId(new IndexerDomainId(digest(0x10, IdentitySource.EXPLICIT),
        digest(0x80, IdentitySource.EXPLICIT)), DcId.of(1));
    KvPoolId laterDc = new KvPoolId(new IndexerDomainId(digest(0x10, IdentitySource.EXPLICIT),
        digest(0, IdentitySource.EXPLICIT)), DcId.of(-1L));
    PoolCatalog catalog = new PoolCatalog(RELAY);
    for (KvPoolId id : List.of(highByte, laterDc, laterRouting, lowByte, derived)) {
      catalog.upsert(descriptor(producer(id, 1)));
    }
    assertThat(catalog.snapshot().pools()).extracting(KvPoolDescriptor::poolId)
        .containsExactly(derived, lowByte, laterDc, laterRouting, highByte);
  }

  @Test
  void registrationChangeIsAnUpsertWithTheSameKey() throws DescriptorException {
    PoolCatalog catalog = new PoolCatalog(RELAY);
    KvPoolDescriptor d = descriptor(1, 1);
    catalog.upsert(d);
    assertThat(catalog.upsert(d.withRegistrations(List.of(base("mistral"))))).isEqualTo(UpsertOutcome.REPLACED);
    CatalogSnapshot s = catalog.snapshot();
    assertThat(s.revision()).isEqualTo(2L);
    assertThat(s.pools()).singleElement().satisfies(p -> {
      assertThat(p.producer()).isEqualTo(d.producer());
      assertThat(p.registrations()).containsExactly(base("mistral"));
    });
  }

  /** producer.md §2.7: a generation swap is a removal, then an upsert with a new layout_generation. */
  @Test
  void generationSwapIsRemovalThenUpsertOfANewKey() {
    PoolCatalog catalog = new PoolCatalog(RELAY);
    catalog.upsert(descriptor(1, 1));
    assertThat(catalog.remove(pool(1), 1)).isEqualTo(RemoveOutcome.REMOVED);
    CatalogSnapshot afterRemoval = catalog.snapshot();
    assertThat(afterRemoval.revision()).isEqualTo(2L);
    assertThat(afterRemoval.pools()).isEmpty();
    assertThat(catalog.upsert(descriptor(1, 2))).isEqualTo(UpsertOutcome.INSERTED);
    CatalogSnapshot afterAttach = catalog.snapshot();
    assertThat(afterAttach.revision()).isEqualTo(3L);
    assertThat(afterAttach.pools()).singleElement()
        .satisfies(p -> assertThat(p.producer().layoutGeneration()).isEqualTo(2L));
  }

  @Test
  void removeNeverRemovesANewerGeneration() {
    PoolCatalog catalog = new PoolCatalog(RELAY);
    catalog.upsert(descriptor(1, 5));
    CatalogSnapshot before = catalog.snapshot();
    assertThat(catalog.remove(pool(1), 4)).isEqualTo(RemoveOutcome.GENERATION_MISMATCH);
    assertThat(catalog.remove(pool(2), 5)).isEqualTo(RemoveOutcome.ABSENT);
    assertThat(catalog.snapshot()).isEqualTo(before);
    assertThat(catalog.revision()).isEqualTo(1L);
  }

  @Test
  void generationsCompareUnsigned() {
    PoolCatalog catalog = new PoolCatalog(RELAY);
    catalog.upsert(descriptor(1, -1L));
    assertThat(catalog.upsert(descriptor(1, 7))).isEqualTo(UpsertOutcome.REJECTED_OLDER_GENERATION);
    assertThat(catalog.get(pool(1)).orElseThrow().layoutGeneration()).isEqualTo(-1L);
    assertThat(catalog.remove(pool(1), -1L)).isEqualTo(RemoveOutcome.REMOVED);
  }

  @Test
  void staleOrForeignUpsertChangesNothing() {
    PoolCatalog catalog = new PoolCatalog(RELAY);
    catalog.upsert(descriptor(1, 3));
    CatalogSnapshot before = catalog.snapshot();
    assertThat(catalog.upsert(descriptor(1, 2))).isEqualTo(UpsertOutcome.REJECTED_OLDER_GENERATION);
    ProducerIdentity foreign = new ProducerIdentity(pool(2), INCARNATION + 1, 1, CkfFormat.withDefaultSeed(1024));
    assertThat(catalog.upsert(descriptor(foreign))).isEqualTo(UpsertOutcome.REJECTED_FOREIGN_INCARNATION);
    assertThat(catalog.snapshot()).isSameAs(before);
    assertThat(catalog.revision()).isEqualTo(1L);
  }

  @Test
  void clearEmptiesAndAdvancesTheRevision() {
    PoolCatalog catalog = new PoolCatalog(RELAY);
    catalog.upsert(descriptor(1, 1));
    catalog.upsert(descriptor(2, 2));
    catalog.clear();
    assertThat(catalog.snapshot().pools()).isEmpty();
    assertThat(catalog.revision()).isEqualTo(3L);
    catalog.clear();
    assertThat(catalog.revision()).isEqualTo(4L);
  }

  @Test
  void revisionSaturatesAtU64Max() {
    PoolCatalog catalog = new PoolCatalog(RELAY, 0xFFFF_FFFF_FFFF_FFFEL);
    catalog.upsert(descriptor(1, 1));
    assertThat(Long.toUnsignedString(catalog.revision())).isEqualTo("18446744073709551615");
    catalog.upsert(descriptor(2, 2));
    catalog.remove(pool(1), 1);
    catalog.clear();
    assertThat(Long.toUnsignedString(catalog.snapshot().revision())).isEqualTo("18446744073709551615");
    assertThat(catalog.snapshot().pools()).isEmpty();
  }

  @Test
  void earlierSnapshotsDoNotChange() {
    PoolCatalog catalog = new PoolCatalog(RELAY);
    catalog.upsert(descriptor(1, 1));
    CatalogSnapshot first = catalog.snapshot();
    catalog.upsert(descriptor(2, 2));
    catalog.clear();
    assertThat(first.revision()).isEqualTo(1L);
    assertThat(first.pools()).extracting(KvPoolDescriptor::poolId).containsExactly(pool(1));
  }

  @Test
  void relayIncarnationFencesAnIdenticalPoolLayout() {
    RelayIdentity other = new RelayIdentity(RELAY.drtInstanceId(), INCARNATION + 1);
    PoolCatalog mine = new PoolCatalog(RELAY);
    PoolCatalog theirs = new PoolCatalog(other);
    ProducerIdentity a = producer(pool(1), 1);
    ProducerIdentity b = new ProducerIdentity(pool(1), other.relayIncarnation(), 1, a.ckfFormat());
    mine.upsert(descriptor(a));
    theirs.upsert(descriptor(b));
    assertThat(mine.snapshot().pools().get(0).producer())
        .isNotEqualTo(theirs.snapshot().pools().get(0).producer());
  }
}
