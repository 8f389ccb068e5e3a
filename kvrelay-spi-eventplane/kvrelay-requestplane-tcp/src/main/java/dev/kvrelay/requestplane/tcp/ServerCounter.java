package dev.kvrelay.requestplane.tcp;

/** Immutable and thread-safe: the counters of a {@link TcpRequestServer}. */
public enum ServerCounter {
  /** Request connections accepted. */
  CONNECTIONS,
  /** Request frames read. */
  REQUESTS,
  /** Requests ACKed empty (accepted). */
  ACCEPTED,
  /** ACK {@code Server unavailable: unknown endpoint …}. */
  UNKNOWN_ENDPOINTS,
  /** ACK {@code Server overloaded: worker at capacity}. */
  OVERLOADED,
  /** ACK refusals chosen by a handler's {@code admit}. */
  REFUSED_BY_HANDLER,
  /** ACK {@code Decode error: …} (bad envelope, control message, codec or body). */
  DECODE_ERRORS,
  /** Connections closed on a frame above {@code DYN_TCP_MAX_MESSAGE_SIZE} or a broken frame. */
  BAD_FRAMES,
  /** Requests whose response transport is not {@code tcp_server} (cannot answer; dropped). */
  UNSUPPORTED_TRANSPORTS,
  /** Call-home dials that failed (the caller is gone). */
  DIAL_FAILURES,
  /** Error prologues sent (handler failure, invalid context or stream type, header-only envelope). */
  ERROR_PROLOGUES,
  /** Streams completed with the sentinel. */
  STREAMS_COMPLETED,
  /** Writes on a response socket that failed mid-stream. */
  STREAMS_BROKEN,
  /** {@code stop} / {@code kill} received from a caller. */
  CANCELLED_BY_CALLER,
  /** The caller did not close its write side within 10 s of the sentinel. */
  FIN_TIMEOUTS
}
