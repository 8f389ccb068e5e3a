#!/usr/bin/python3
"""Independent TCP request-plane worker, written from plugins-wire.md section 1 (not from the Java code).

Listens on 127.0.0.1:<ephemeral>, prints "PORT <n>", serves request frames
(u16 path_len, path, u16 headers_len, headers JSON, u32 payload_len, payload = TwoPart envelope), ACKs each
(u32 len + text), dials the caller's response listener and streams: handshake -> prologue -> data items ->
{"complete_final": true} -> "sentinel", then waits up to 10 s for the caller's FIN.

It answers WorkerKvQuery recovery requests from a block state it holds (a chain of stored blocks with an event
log). stdin commands: "MODE <mode>" (prints "MODE-OK <mode>"), "REPLY <n> <kind> ..." (bridge mode).
Every request is reported as "REQUEST <json>"; violations of the spec by the caller as "VIOLATION <text>".
EOF-on-stdin stops it.
"""
import json
import socket
import struct
import sys
import threading
import time

MAX = 32 * 1024 * 1024
out_lock = threading.Lock()


def say(*parts):
    with out_lock:
        sys.stdout.write(" ".join(parts) + "\n")
        sys.stdout.flush()


def recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError("closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return bytes(buf)


def two_part(header=b"", body=b""):
    # header_len u64 BE, body_len u64 BE, checksum u64 BE (0 = release build), header, body
    return struct.pack(">QQQ", len(header), len(body), 0) + header + body


def read_two_part(sock):
    hl, bl, _checksum = struct.unpack(">QQQ", recv_exact(sock, 24))
    if hl + bl > MAX:
        raise ValueError("frame too large")
    return recv_exact(sock, hl), recv_exact(sock, bl)


def parse_two_part(data):
    hl, bl, checksum = struct.unpack(">QQQ", data[:24])
    if 24 + hl + bl != len(data):
        raise ValueError("TwoPart lengths %d+%d do not match payload %d" % (hl, bl, len(data)))
    return data[24:24 + hl], data[24 + hl:], checksum


def jdump(v):
    return json.dumps(v, separators=(",", ":")).encode()


class BlockState:
    """A chain of stored blocks and the event log that built it (event ids first_id..last_id)."""

    def __init__(self, worker_id, dp_rank, blocks, first_id):
        self.worker_id = worker_id
        self.dp_rank = dp_rank
        self.log = []
        parent = None
        eid = first_id
        for (h, t) in blocks:
            self.log.append(self.stored(eid, parent, h, t))
            parent = h
            eid += 1
        self.blocks = list(blocks)

    def stored(self, eid, parent, h, t):
        return {"worker_id": self.worker_id, "storage_tier": "device", "residency_domain": "worker",
                "event": {"event_id": eid,
                          "data": {"stored": {"parent_hash": parent, "start_position": None,
                                              "blocks": [{"block_hash": h, "tokens_hash": t, "mm_extra_info": None}]}},
                          "dp_rank": self.dp_rank}}

    def newest(self):
        return self.log[-1]["event"]["event_id"]

    def oldest(self):
        return self.log[0]["event"]["event_id"]

    def tree_dump(self):
        events = []
        parent = None
        for i, (h, t) in enumerate(self.blocks):  # synthetic ids from 0, parents before children
            events.append(self.stored(i, parent, h, t))
            parent = h
        return {"TreeDump": {"events": events, "last_event_id": self.newest(), "reset_scope": "all"}}

    def answer(self, req, mode):
        if req.get("worker_id") != self.worker_id or req.get("dp_rank", 0) != self.dp_rank:
            return {"Error": "unknown worker %s rank %s" % (req.get("worker_id"), req.get("dp_rank"))}
        start = req.get("start_event_id")
        if start is None or start < self.oldest():
            if mode == "tree_dump_failed":
                return {"TreeDumpFailed": {"last_event_id": self.newest(), "message": "tree dump already running"}}
            return self.tree_dump()
        if start > self.newest() + 1:
            return {"TooNew": {"requested_start": start, "requested_end": req.get("end_event_id"),
                               "newest_available": self.newest()}}
        return {"Events": {"events": [e for e in self.log if e["event"]["event_id"] >= start],
                           "last_event_id": self.newest()}}


STATE = BlockState(7587891234567890123, 0,
                   [(9876543210987654321, 14643705804678351452), (18446744073709551615, 5), (42, 43)], 40)
mode = "normal"
tls_ctx = None
replies = {}
reply_cv = threading.Condition()
query_no = [0]


def stdin_loop():
    global mode, tls_ctx
    for line in sys.stdin:
        parts = line.rstrip("\n").split(" ", 3)
        if parts[0] == "MODE":
            mode = parts[1]
            say("MODE-OK", mode)
        elif parts[0] == "TLS":
            # TLS <ca.pem> [<cert.pem> <key.pem>]: call home over TLS, verifying the listener against the CA
            import ssl
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.load_verify_locations(parts[1])
            if len(parts) > 2:
                cert, key = parts[2].split(" ") if len(parts) == 3 else (parts[2], parts[3])
                ctx.load_cert_chain(cert, key)
            tls_ctx = ctx
            say("TLS-OK")
        elif parts[0] == "REPLY":
            with reply_cv:
                replies[int(parts[1])] = parts[2:]
                reply_cv.notify_all()
    say("BYE")
    import os
    os._exit(0)


def violation(text):
    say("VIOLATION", text)


def check_request(path, headers, payload):
    """Validates the caller's frame against plugins-wire 1.3 / 1.4; returns (control, body) or raises."""
    header, body, checksum = parse_two_part(payload)
    if checksum != 0:
        violation("non-zero checksum")
    ctl = json.loads(header)
    keys = list(ctl.keys())
    expected_order = ["id", "request_type", "response_type", "payload_codec", "connection_info"]
    if keys[:5] != expected_order:
        violation("control message field order %s" % keys)
    if ctl["request_type"] != "single_in" or ctl["response_type"] != "many_out":
        violation("request/response type %s/%s" % (ctl["request_type"], ctl["response_type"]))
    if ctl.get("payload_codec", "json") != "json":
        violation("payload codec %s" % ctl.get("payload_codec"))
    ci = ctl["connection_info"]
    if ci["transport"] != "tcp_server":
        violation("transport %s" % ci["transport"])
    info = json.loads(ci["info"])
    if list(info.keys()) != ["address", "subject", "context", "stream_type"]:
        violation("connection info keys %s" % list(info.keys()))
    if info["context"] != ctl["id"]:
        violation("context != id")
    if info["stream_type"] != "response":
        violation("stream_type %s" % info["stream_type"])
    if headers.get("x-endpoint-path") != path:
        violation("x-endpoint-path header %r != path %r" % (headers.get("x-endpoint-path"), path))
    if headers.get("request-id") != ctl["id"]:
        violation("request-id header != id")
    if not body:
        violation("empty body for single_in")
    return ctl, info, json.loads(body)



def serve_conn(conn):
    try:
        while True:
            try:
                (plen,) = struct.unpack(">H", recv_exact(conn, 2))
            except EOFError:
                return
            path = recv_exact(conn, plen).decode()
            (hlen,) = struct.unpack(">H", recv_exact(conn, 2))
            headers = json.loads(recv_exact(conn, hlen) or b"{}")
            (paylen,) = struct.unpack(">I", recv_exact(conn, 4))
            payload = recv_exact(conn, paylen)
            m = mode
            try:
                ctl, info, req = check_request(path, headers, payload)
            except Exception as e:  # noqa: BLE001
                violation("undecodable request: %r" % e)
                conn.sendall(ack("Decode error: %s" % e))
                continue
            say("REQUEST", json.dumps({"path": path, "headers": headers, "control": ctl, "info": info,
                                       "body": req, "mode": m}, separators=(",", ":")))
            plan = None
            if m == "bridge":
                with reply_cv:
                    query_no[0] += 1
                    n = query_no[0]
                say("QUERY", str(n), path, json.dumps(req, separators=(",", ":")))
                with reply_cv:
                    while n not in replies:
                        reply_cv.wait()
                    plan = replies.pop(n)
                if plan[0] == "REFUSE":
                    conn.sendall(ack(plan[1]))
                    continue
            if m == "overloaded":
                conn.sendall(ack("Server overloaded: worker at capacity"))
                continue
            if m == "unavailable":
                conn.sendall(ack("Server unavailable: unknown endpoint " + path))
                continue
            if m == "other_ack":
                conn.sendall(ack("Read error: unexpected end of file"))
                continue
            if m == "never_call_home":
                conn.sendall(ack(""))
                continue
            if m == "silent_ack":
                continue  # never ACK
            if m == "call_home_first":
                t = threading.Thread(target=call_home, args=(ctl, info, req, m, plan), daemon=True)
                t.start()
                t.join()  # the whole stream is done before the ACK goes out
                conn.sendall(ack(""))
                continue
            conn.sendall(ack(""))
            threading.Thread(target=call_home, args=(ctl, info, req, m, plan), daemon=True).start()
    except Exception as e:  # noqa: BLE001
        say("CONN-ERROR", repr(e))
    finally:
        conn.close()


def ack(text):
    data = text.encode()
    return struct.pack(">I", len(data)) + data


def call_home(ctl, info, req, m, plan):
    host, port = info["address"].rsplit(":", 1)
    s = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
    try:
        if tls_ctx is not None:
            s = tls_ctx.wrap_socket(s, server_hostname=host.strip("[]"))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(two_part(jdump({"subject": info["subject"], "stream_type": "response"})))
        if plan is not None:
            kind = plan[0]
            if kind == "SILENCE":
                wait_for_caller(s, 60)
                return
            if kind == "ANSWER":
                rest = plan[1].split(" ", 1) if len(plan) == 2 else [plan[1], plan[2]]
                delay_ms = int(rest[0])
                answer = json.loads(rest[1] if len(rest) > 1 else plan[2])
                time.sleep(delay_ms / 1000.0)
                s.sendall(two_part(jdump({"error": None})))
                s.sendall(two_part(b"", jdump({"data": answer, "complete_final": False})))
                s.sendall(two_part(b"", jdump({"complete_final": True})))
                s.sendall(two_part(jdump("sentinel")))
                wait_for_caller(s, 10)
                return
        if m == "prologue_error":
            s.sendall(two_part(jdump({"error": "engine failed: no indexer for this rank"})))
            wait_for_caller(s, 10)
            return
        if m == "malformed_prologue":
            s.sendall(two_part(b"", jdump({"error": None})))
            wait_for_caller(s, 10)
            return
        s.sendall(two_part(jdump({"error": None})))
        answer = STATE.answer(req, m)
        if m == "oversize":
            s.sendall(struct.pack(">QQQ", 0, MAX + 1, 0) + b"x" * 1024)
            wait_for_caller(s, 10)
            return
        s.sendall(two_part(b"", jdump({"data": answer, "complete_final": False})))
        if m == "cut_stream":
            s.shutdown(socket.SHUT_WR)
            s.close()
            return
        if m == "slow_stream":
            wait_for_caller(s, 60)
            return
        s.sendall(two_part(b"", jdump({"complete_final": True})))
        s.sendall(two_part(jdump("sentinel")))
        wait_for_caller(s, 10)
    except Exception as e:  # noqa: BLE001
        say("CALLHOME-ERROR", repr(e))
    finally:
        s.close()


def wait_for_caller(s, seconds):
    """Reads until the caller's FIN; reports control frames ("stop"/"kill") and anything else it sends."""
    s.settimeout(seconds)
    try:
        while True:
            h, b = read_two_part(s)
            if b or json.loads(h) not in ("stop", "kill"):
                violation("caller sent a non-control frame on a response socket")
            say("CONTROL", json.loads(h))
    except EOFError:
        say("FIN")
    except socket.timeout:
        say("NO-FIN")
    except OSError as e:
        say("RESET", repr(e))


def main():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    threading.Thread(target=stdin_loop, daemon=True).start()
    say("PORT", str(srv.getsockname()[1]))
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve_conn, args=(conn,), daemon=True).start()


if __name__ == "__main__":
    main()
