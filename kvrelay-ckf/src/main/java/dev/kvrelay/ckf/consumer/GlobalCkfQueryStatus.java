package dev.kvrelay.ckf.consumer;

/** Immutable: whether a {@link GlobalCkfIndexer#query} produced depths. */
public enum GlobalCkfQueryStatus {
  /** Depths are available for every captured ready lane. */
  ANSWERED,
  /** No configured lane was ready ({@code Unavailable}); the result reports no lane. */
  UNAVAILABLE
}
