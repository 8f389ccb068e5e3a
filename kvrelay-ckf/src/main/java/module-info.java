/**
 * The byte-exact and hot core of kvrelay: CKF addressing and packed buckets, the producer table with
 * exact ownership and publication batches, the CBI1 codec, the transposed consumer table with its
 * prefix-depth search, and canonical token/sequence hashing. No threads, no I/O.
 */
module dev.kvrelay.ckf {
  requires static transitive org.jspecify;
  requires transitive dev.kvrelay.api;
  requires hash4j;

  exports dev.kvrelay.ckf;
  exports dev.kvrelay.ckf.hashing;
  exports dev.kvrelay.ckf.cbi1;
  exports dev.kvrelay.ckf.producer;
  exports dev.kvrelay.ckf.consumer;
}
