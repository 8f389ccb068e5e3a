/**
 * The pool actor (producer.md §3): a single-writer, executor-confined actor around one pool's
 * {@link dev.kvrelay.ckf.producer.CkfProducer}, with a bounded mailbox, the publication cadence
 * (threshold and one-shot timer on an injectable {@link dev.kvrelay.engine.actor.ActorScheduler}), fault
 * dispositions and barrier snapshots for new subscribers.
 */
@NullMarked
package dev.kvrelay.engine.actor;

import org.jspecify.annotations.NullMarked;
