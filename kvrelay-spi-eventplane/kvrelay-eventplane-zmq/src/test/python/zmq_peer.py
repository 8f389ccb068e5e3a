#!/usr/bin/python3
"""An independent Dynamo event-plane peer on Debian's libzmq (python3-zmq) and python3-msgpack, written from
the kvrelay spec (runtime-inputs.md section 5.3/5.4/5.6/5.7/8, plugins-wire.md section 2), not from the Java code.

  zmq_peer.py publisher <publisher_id> direct [<endpoint>]
      binds a PUB socket on tcp://127.0.0.1:<random> (or on <endpoint>, e.g. a restarted publisher on its old
      port); frame 0 is the plain topic
  zmq_peer.py publisher <publisher_id> broker <xsub_endpoint> <namespace> <component> <endpoint>
      connects a PUB socket to a broker's XSUB; frame 0 is the full subject of the endpoint scope
  zmq_peer.py broker
      an XSUB/XPUB proxy on two random loopback ports

stdout (one line each): "READY <endpoint>" (publisher) or "BROKER <xsub> <xpub>"; then one reply per command.
stdin: one JSON command per line; EOF ends the process.
  {"op":"warmup","topic":T}       marker messages every 20 ms until the next command arrives ("WARM <n>")
  {"op":"events","first":i,"count":n,"worker":w,"skip":[k...]}
                                  kv-events RouterEvents i..i+n-1 (see router_event); an event whose index is in
                                  skip consumes its sequence number but is never sent ("SENT <n> <next_seq>")
  {"op":"loads","first":i,"count":n,"worker":w}   kv_metrics ActiveLoads ("SENT ...")
  {"op":"raw","case":C}           one malformed message ("RAW <case>"); it reuses the next sequence without
                                  consuming it
  {"op":"burst","count":n,"worker":w}  n RouterEvents, encoded first, then sent as fast as the socket takes them
                                  ("BURST <n> <send seconds>")
"""
import json
import os
import select
import sys
import time

import msgpack
import zmq

U64 = (1 << 64) - 1
MARKER_WORKER = 0x7EADBEEF00000099


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def segment(s):
    """runtime-inputs 1.3: [A-Za-z0-9_-] pass, every other byte %HH upper-case."""
    ok = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
    return "".join(chr(b) if b in ok else "%%%02X" % b for b in s.encode("utf-8"))


def subject(ns, comp, ep, topic):
    """runtime-inputs 5.3, endpoint scope."""
    return "namespace.%s.component.%s.endpoint.%s.%s" % (segment(ns), segment(comp), segment(ep), segment(topic))


def router_event(worker, i):
    """RouterEvent number i (plugins-wire 2.2 field order): stored / removed / cleared by i mod 17 and 5."""
    if i % 17 == 16:
        data = "cleared"
    elif i % 5 == 4:
        data = {"removed": {"block_hashes": [(i * 7919) & U64, U64 - i]}}
    else:
        data = {"stored": {
            "parent_hash": None if i % 3 == 0 else (i * 31) & U64,
            "start_position": None if i % 2 == 0 else i % 1000,
            "blocks": [{"block_hash": (i * 7919 + k) & U64,
                        "tokens_hash": ((i + k) * 0x9E3779B97F4A7C15) & U64,
                        "mm_extra_info": None} for k in range(1 + i % 3)]}}
    return {"worker_id": worker, "storage_tier": "device", "residency_domain": "worker",
            "event": {"event_id": i, "data": data, "dp_rank": i % 4}}


def active_load(worker, i):
    """ActiveLoad number i (runtime-inputs 8, plugins-wire 2.2: the three options always written)."""
    return {"worker_id": worker, "dp_rank": i % 4, "active_decode_blocks": i * 3,
            "active_prefill_tokens": None, "kv_used_blocks": 100 + i}


def envelope(publisher_id, seq, topic, payload):
    """runtime-inputs 5.6: named map, payload as bin."""
    return msgpack.packb({"publisher_id": publisher_id, "sequence": seq,
                          "published_at": int(time.time() * 1000), "topic": topic, "payload": payload},
                         use_bin_type=True)


def frames(frame0, publisher_id, seq, env_bytes, version=1, length_delta=0):
    """runtime-inputs 5.4: topic, u64 BE id, u64 BE sequence, 0x01 + u32 BE length + envelope."""
    head = bytes([version]) + (len(env_bytes) + length_delta).to_bytes(4, "big")
    return [frame0.encode("utf-8"), publisher_id.to_bytes(8, "big"), seq.to_bytes(8, "big"), head + env_bytes]


class Publisher:
    def __init__(self, ctx, publisher_id, argv):
        self.id = publisher_id
        self.seq = 0
        self.sock = ctx.socket(zmq.PUB)
        self.sock.setsockopt(zmq.SNDHWM, 100000)
        self.sock.setsockopt(zmq.LINGER, 0)
        if argv[0] == "direct" and len(argv) > 1:
            self.sock.bind(argv[1])
            self.endpoint = argv[1]
            self.frame0 = lambda topic: topic
        elif argv[0] == "direct":
            port = self.sock.bind_to_random_port("tcp://127.0.0.1")
            self.endpoint = "tcp://127.0.0.1:%d" % port
            self.frame0 = lambda topic: topic
        else:
            self.endpoint = argv[1]
            self.sock.connect(argv[1])
            ns, comp, ep = argv[2], argv[3], argv[4]
            self.frame0 = lambda topic: subject(ns, comp, ep, topic)

    def send(self, parts):
        self.sock.send_multipart(parts)

    def publish(self, topic, payload_obj, send=True):
        payload = msgpack.packb(payload_obj, use_bin_type=True)
        seq = self.seq
        self.seq += 1
        if send:
            self.send(frames(self.frame0(topic), self.id, seq, envelope(self.id, seq, topic, payload)))

    def raw(self, case):
        t = "kv-events"
        s = self.seq
        good = envelope(self.id, s, t, msgpack.packb(router_event(1, 0), use_bin_type=True))
        f0 = self.frame0(t)
        if case == "three_frames":
            parts = frames(f0, self.id, s, good)[:3]
        elif case == "five_frames":
            parts = frames(f0, self.id, s, good) + [b"extra"]
        elif case == "short_id_frame":
            parts = frames(f0, self.id, s, good)
            parts[1] = parts[1][1:]
        elif case == "bad_version":
            parts = frames(f0, self.id, s, good, version=2)
        elif case == "length_mismatch":
            parts = frames(f0, self.id, s, good, length_delta=1)
        elif case == "bad_msgpack":
            parts = frames(f0, self.id, s, b"\xc1\x00\x01")
        elif case == "bad_payload":
            parts = frames(f0, self.id, s, envelope(self.id, s, t, b"\x93\x01\x02\x03"))
        elif case == "publisher_mismatch":
            parts = frames(f0, self.id, s, envelope(self.id + 1, s, t, msgpack.packb(router_event(1, 0))))
        elif case == "unexpected_publisher":
            other = self.id + 2
            parts = frames(f0, other, 0, envelope(other, 0, t, msgpack.packb(router_event(1, 0))))
        elif case == "sequence_mismatch":
            parts = frames(f0, self.id, s, envelope(self.id, s + 5, t, msgpack.packb(router_event(1, 0))))
        elif case == "frame0_mismatch":
            parts = frames(f0 + "-other", self.id, s, good)
        elif case == "envelope_topic_mismatch":
            parts = frames(f0, self.id, s, envelope(self.id, s, "kv_metrics", msgpack.packb(router_event(1, 0))))
        else:
            raise ValueError("unknown raw case " + case)
        self.send(parts)


class Stdin:
    """Line reader on fd 0 that can wait with a timeout (select) without Python's buffering in the way."""

    def __init__(self):
        self.buf = b""
        self.eof = False

    def line(self, timeout):
        while b"\n" not in self.buf:
            if self.eof:
                return None
            r, _, _ = select.select([0], [], [], timeout)
            if not r:
                return ""
            chunk = os.read(0, 65536)
            if not chunk:
                self.eof = True
                if not self.buf:
                    return None
                self.buf += b"\n"
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("utf-8")


def run_publisher(publisher_id, argv):
    ctx = zmq.Context(1)
    p = Publisher(ctx, publisher_id, argv)
    out("READY " + p.endpoint)
    stdin = Stdin()
    warm_topic = None
    warm_count = 0
    while True:
        line = stdin.line(0.02 if warm_topic else None)
        if line is None:
            break
        if line == "":
            marker = active_load(MARKER_WORKER, 0) if warm_topic == "kv_metrics" else router_event(MARKER_WORKER, 16)
            p.publish(warm_topic, marker)
            warm_count += 1
            continue
        if warm_topic:
            out("WARM %d" % warm_count)
            warm_topic = None
        cmd = json.loads(line)
        op = cmd["op"]
        if op == "warmup":
            warm_topic, warm_count = cmd["topic"], 0
        elif op == "events":
            skip = set(cmd.get("skip", []))
            first, n = cmd["first"], cmd["count"]
            for i in range(first, first + n):
                p.publish("kv-events", router_event(cmd["worker"], i), send=i not in skip)
            out("SENT %d %d" % (n, p.seq))
        elif op == "loads":
            first, n = cmd["first"], cmd["count"]
            for i in range(first, first + n):
                p.publish("kv_metrics", active_load(cmd["worker"], i))
            out("SENT %d %d" % (n, p.seq))
        elif op == "raw":
            p.raw(cmd["case"])
            out("RAW " + cmd["case"])
        elif op == "burst":
            n, w = cmd["count"], cmd["worker"]
            batch = []
            for i in range(n):  # encoded first, so that the send rate is the socket's, not msgpack's
                payload = msgpack.packb(router_event(w, i), use_bin_type=True)
                batch.append(frames(p.frame0("kv-events"), p.id, p.seq, envelope(p.id, p.seq, "kv-events", payload)))
                p.seq += 1
            t0 = time.monotonic()
            for parts in batch:
                p.send(parts)
            out("BURST %d %.3f" % (n, time.monotonic() - t0))
        else:
            out("ERROR unknown op " + op)
    p.sock.close(0)
    ctx.term()


def run_broker():
    ctx = zmq.Context(1)
    xsub = ctx.socket(zmq.XSUB)
    xpub = ctx.socket(zmq.XPUB)
    for s in (xsub, xpub):
        s.setsockopt(zmq.LINGER, 0)
    xsub.setsockopt(zmq.RCVHWM, 100000)
    xpub.setsockopt(zmq.SNDHWM, 100000)
    a = xsub.bind_to_random_port("tcp://127.0.0.1")
    b = xpub.bind_to_random_port("tcp://127.0.0.1")
    out("BROKER tcp://127.0.0.1:%d tcp://127.0.0.1:%d" % (a, b))
    # forward until stdin closes: poll both sockets and stdin
    poller = zmq.Poller()
    poller.register(xsub, zmq.POLLIN)
    poller.register(xpub, zmq.POLLIN)
    poller.register(0, zmq.POLLIN)
    while True:
        ready = dict(poller.poll())
        if ready.get(0):
            if not os.read(0, 65536):
                break
        if ready.get(xsub):
            xpub.send_multipart(xsub.recv_multipart())
        if ready.get(xpub):
            xsub.send_multipart(xpub.recv_multipart())
    xsub.close(0)
    xpub.close(0)
    ctx.term()


if __name__ == "__main__":
    if sys.argv[1] == "broker":
        run_broker()
    else:
        run_publisher(int(sys.argv[2]), sys.argv[3:])
