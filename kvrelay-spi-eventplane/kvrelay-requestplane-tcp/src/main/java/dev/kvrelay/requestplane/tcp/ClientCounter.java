package dev.kvrelay.requestplane.tcp;

/**
 * Immutable and thread-safe: the counters of a {@link TcpRequestPlaneClient}. Every failure of a query is
 * counted under exactly one failure counter (and logged once); the others count traffic, anomalies and failures of
 * background tasks.
 */
public enum ClientCounter {
  /** Queries submitted. */
  QUERIES,
  /** Queries answered with a response item. */
  ANSWERS,
  /** Empty (accepting) ACKs. */
  ACKS_ACCEPTED,
  /** Request connections opened. */
  CONNECTIONS_OPENED,
  /** Call-home connections accepted by the response listener. */
  CALL_HOMES,
  /** Call-home sockets whose handshake named a pending subject (the stream is attached to its query). */
  STREAMS_ATTACHED,

  /** Failure: ACK {@code Server overloaded:} (REJECTED). */
  REJECTED_OVERLOADED,
  /** Failure: ACK {@code Server unavailable:} (REJECTED). */
  REJECTED_UNAVAILABLE,
  /** Failure: any other non-empty ACK (PROTOCOL, plugins-wire §1.6 recommendation). */
  REJECTED_OTHER_ACK,
  /** Failure: the prologue carried an error (REJECTED). */
  PROLOGUE_ERRORS,
  /** Failure: no ACK within {@code DYN_TCP_REQUEST_TIMEOUT} (TIMEOUT). */
  ACK_TIMEOUTS,
  /** Failure: no complete answer within the query's timeout (TIMEOUT). */
  QUERY_TIMEOUTS,
  /** Failure: connect refused or timed out ({@code DYN_TCP_CONNECT_TIMEOUT}) (UNREACHABLE). */
  CONNECT_FAILURES,
  /** Failure: the request connection died before this query's ACK (UNREACHABLE). */
  CONNECTIONS_LOST,
  /** Failure: the target's transport is not TCP or its address does not parse (UNREACHABLE). */
  BAD_TARGETS,
  /** Failure: the response socket closed before {@code complete_final} (PROTOCOL). */
  STREAMS_CUT,
  /** Failure: a frame above {@code DYN_TCP_MAX_MESSAGE_SIZE}, in or out (PROTOCOL). */
  OVERSIZE_FRAMES,
  /** Failure: a frame of the wrong kind or invalid JSON on the response socket (PROTOCOL). */
  PROTOCOL_VIOLATIONS,
  /** Failure: the response item is not a {@code WorkerKvQueryResponse} (PROTOCOL). */
  UNDECODABLE_RESPONSES,
  /** Failure: the client was closed (CLOSED). */
  CLOSED,
  /** Failure: the caller cancelled the query's future ({@code stop} sent). */
  CANCELLED,

  /** Anomaly: a call-home naming no pending subject (socket closed). */
  UNKNOWN_SUBJECTS,
  /** Anomaly: no handshake within 10 s of accept, a malformed one, or a failed TLS handshake (socket closed). */
  BAD_HANDSHAKES,
  /** Anomaly: a second call-home for a subject already attached (socket closed). */
  DUPLICATE_CALL_HOMES,
  /** Anomaly: call-home connections refused because too many were open. */
  CALL_HOMES_REFUSED,
  /** Anomaly: response items after the first (ignored: a recovery answer is one item). */
  EXTRA_ITEMS,
  /** Anomaly: after {@code complete_final}, no header-only {@code "sentinel"} followed. */
  MISSING_SENTINELS,
  /** Anomaly: an ACK that arrived for a query already finished. */
  LATE_ACKS,
  /** {@code kill} sent on a response socket (timeout, protocol violation, close). */
  KILLS_SENT,

  /**
   * Background: a connect to a worker that failed, every attempt — also one whose query had already ended (the
   * query itself, if still waiting, fails under {@link #CONNECT_FAILURES}).
   */
  CONNECT_ATTEMPTS_FAILED,
  /**
   * Background: a request connection's ACK reader stopped on an I/O error or a bad ACK stream (a reply cut
   * mid-frame, an ACK with no request outstanding) while the connection was open; the connection is retired and its
   * queries still awaiting an ACK fail under {@link #CONNECTIONS_LOST}. A worker's clean close between ACKs and this
   * client's own close are not counted.
   */
  READER_FAILURES,
  /** Background: the response listener's accept failed while open (no call-home is received after it). */
  LISTENER_FAILURES,
  /**
   * Background: an unexpected exception escaped a background task (a query or ACK timer, a request sender, an ACK
   * or call-home reader, the accept loop); logged with its stack trace.
   */
  BACKGROUND_TASK_FAILURES
}
