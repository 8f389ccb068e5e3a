/**
 * XXH3 access, the canonical sequence-hash chain, and Dynamo token block hashing (standard and EAGLE
 * windows, LoRA / cache-namespace salt, multimodal extra hashes).
 */
@NullMarked
package dev.kvrelay.ckf.hashing;

import org.jspecify.annotations.NullMarked;
