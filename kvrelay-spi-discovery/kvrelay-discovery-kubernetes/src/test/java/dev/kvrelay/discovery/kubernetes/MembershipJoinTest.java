package dev.kvrelay.discovery.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvrelay.spi.discovery.DiscoveryRecord;
import dev.kvrelay.spi.discovery.TestRecords;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code runtime-inputs §3.2}: the join of ready members with CRs. */
class MembershipJoinTest {
  private static final DiscoveryRecord A = TestRecords.endpoint("dynamo", "backend", "generate", 1, "h:1/generate");
  private static final DiscoveryRecord B = TestRecords.endpoint("dynamo", "backend", "generate", 2, "h:2/generate");

  private static WorkerCr cr(String name, String owner, List<DiscoveryRecord> records) {
    return new WorkerCr(name, "cr-" + name, "1", Set.of(owner), records, List.of(), true);
  }

  @Test
  void joinsByCrNameAndRequiresTheOwnerUid() {
    Map<String, WorkerCr> crs = Map.of("w0", cr("w0", "u0", List.of(A)), "w1", cr("w1", "u1", List.of(B)));
    MembershipJoin.Result r = MembershipJoin.join(
        List.of(new ReadyMember("w0", "u0"), new ReadyMember("w1", "someone-else"), new ReadyMember("w2", "u2")), crs);
    assertThat(r.records()).containsOnlyKeys(A.key());
    assertThat(r.matchedCrs()).containsExactly("w0");
    assertThat(r.ownerMismatches()).isEqualTo(1);
    assertThat(r.withoutCr()).isEqualTo(1);
  }

  @Test
  void aPodInSeveralSlicesCountsOnce() {
    MembershipJoin.Result r = MembershipJoin.join(
        List.of(new ReadyMember("w0", "u0"), new ReadyMember("w0", "u0")), Map.of("w0", cr("w0", "u0", List.of(A))));
    assertThat(r.records()).containsOnlyKeys(A.key());
    assertThat(r.duplicateKeys()).isZero();
  }

  @Test
  void aCrWithoutValidDataContributesNothing() {
    WorkerCr never = new WorkerCr("w0", "cr-w0", "1", Set.of("u0"), null, List.of(), false);
    MembershipJoin.Result r = MembershipJoin.join(List.of(new ReadyMember("w0", "u0")), Map.of("w0", never));
    assertThat(r.records()).isEmpty();
    assertThat(r.withoutCr()).isEqualTo(1);
  }

  @Test
  void aKeyInTwoCrsIsTakenFromTheFirstByName() {
    DiscoveryRecord aElsewhere = TestRecords.endpoint("dynamo", "backend", "generate", 1, "h:9/generate");
    MembershipJoin.Result r = MembershipJoin.join(List.of(new ReadyMember("w1", "u1"), new ReadyMember("w0", "u0")),
        Map.of("w0", cr("w0", "u0", List.of(A)), "w1", cr("w1", "u1", List.of(aElsewhere, B))));
    assertThat(r.records()).containsEntry(A.key(), A).containsEntry(B.key(), B).hasSize(2);
    assertThat(r.duplicateKeys()).isEqualTo(1);
  }
}
