#!/usr/bin/python3
"""An independent Dynamo worker for the kvrelay end-to-end fault tests, written from the kvrelay spec
(runtime-inputs.md 5.3-5.7 and 6.1-6.3, plugins-wire.md 2 and 6), not from the Java code. It keeps the true KV
state of each of its data-parallel ranks (root blocks stored and removed, an event log with ids from 1), publishes
each rank's kv-events with its own publisher id, and answers worker KV queries from that state.

  kv_worker.py <worker_id> <ranks> zmq-direct
      one PUB per rank bound on tcp://127.0.0.1:<random>; frame 0 is the plain topic
  kv_worker.py <worker_id> <ranks> zmq-broker <xsub> <namespace> <component> <endpoint>
      one PUB per rank connected to the broker's XSUB; frame 0 is the full subject
  kv_worker.py <worker_id> <ranks> nats <host> <port> <namespace> <component> <endpoint>
      one raw NATS connection (INFO / CONNECT / PUB / PING / PONG, no library) per rank, re-dialled after a
      server restart; a batch whose PONG does not come back is lost (its sequences stay consumed)

stdout: "READY <json>" with [{"rank", "publisher_id", "endpoint"}], then one reply line per command.
stdin: one JSON command per line; EOF ends the process.
  {"op":"events","count":n}          n events per rank, published               -> "OK <sent>"
  {"op":"skip","rank":r,"count":n}   n events of rank r, sequences consumed, never sent (a gap) -> "OK 0"
  {"op":"rebind","rank":r,"lost":n}  zmq-direct: close rank r's PUB, n events while it is down, bind the same
                                     port again                                  -> "OK 0"
  {"op":"query","req":{...}}         a WorkerKvQueryRequest (JSON)              -> "ANSWER <json>"
  {"op":"state"}                     the live tokens hashes of every rank        -> "STATE <json list of strings>"
"""
import json
import random
import socket
import sys
import time

import msgpack

U64 = (1 << 64) - 1
BUFFER = 1024  # WORKER_KV_INDEXER_BUFFER_SIZE (runtime-inputs 6.1)


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def segment(s):
    ok = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
    return "".join(chr(b) if b in ok else "%%%02X" % b for b in s.encode("utf-8"))


def subject(ns, comp, ep, topic):
    return "namespace.%s.component.%s.endpoint.%s.%s" % (segment(ns), segment(comp), segment(ep), segment(topic))


class Rank:
    def __init__(self, worker, dp_rank, rng):
        self.worker = worker
        self.dp_rank = dp_rank
        self.rng = rng
        self.publisher_id = rng.getrandbits(53) | 1
        self.seq = 0
        self.next_id = 1
        self.log = []          # RouterEvent dicts, newest last, at most BUFFER
        self.live = {}         # block_hash -> tokens_hash

    def event(self, eid, data):
        return {"worker_id": self.worker, "storage_tier": "device", "residency_domain": "worker",
                "event": {"event_id": eid, "data": data, "dp_rank": self.dp_rank}}

    def stored(self, eid, h, t):
        return self.event(eid, {"stored": {"parent_hash": None, "start_position": None,
                                           "blocks": [{"block_hash": h, "tokens_hash": t, "mm_extra_info": None}]}})

    def next_event(self):
        eid = self.next_id
        self.next_id += 1
        if self.live and self.rng.random() < 0.3:
            h = self.rng.choice(sorted(self.live))
            del self.live[h]
            e = self.event(eid, {"removed": {"block_hashes": [h]}})
        else:
            h, t = self.rng.getrandbits(64), self.rng.getrandbits(64)
            self.live[h] = t
            e = self.stored(eid, h, t)
        self.log.append(e)
        del self.log[:-BUFFER]
        return e

    def newest(self):
        return self.next_id - 1

    def answer(self, req):
        """runtime-inputs 6.2 / 6.3: a tree dump, the buffered events from start, or TooNew."""
        if req.get("worker_id") != self.worker or req.get("dp_rank", 0) != self.dp_rank:
            return {"Error": "unknown worker %s rank %s" % (req.get("worker_id"), req.get("dp_rank"))}
        start = req.get("start_event_id")
        oldest = self.log[0]["event"]["event_id"] if self.log else self.next_id
        if start is None or start < oldest:
            events = [self.stored(i, h, t) for i, (h, t) in enumerate(sorted(self.live.items()))]
            return {"TreeDump": {"events": events, "last_event_id": self.newest(), "reset_scope": "all"}}
        if start > self.newest() + 1:
            return {"TooNew": {"requested_start": start, "requested_end": req.get("end_event_id"),
                               "newest_available": self.newest()}}
        return {"Events": {"events": [e for e in self.log if e["event"]["event_id"] >= start],
                           "last_event_id": self.newest()}}

    def envelope(self, payload_obj, topic="kv-events"):
        seq = self.seq
        self.seq += 1
        env = msgpack.packb({"publisher_id": self.publisher_id, "sequence": seq,
                             "published_at": int(time.time() * 1000), "topic": topic,
                             "payload": msgpack.packb(payload_obj, use_bin_type=True)}, use_bin_type=True)
        return seq, env


class ZmqOut:
    """runtime-inputs 5.4: frames topic | u64 BE id | u64 BE sequence | 0x01 + u32 BE length + envelope."""

    def __init__(self, ctx, rank, mode, argv):
        import zmq
        self.zmq = zmq
        self.ctx = ctx
        self.rank = rank
        self.mode = mode
        self.argv = argv
        self.port = None
        self.open()

    def open(self):
        zmq = self.zmq
        self.sock = self.ctx.socket(zmq.PUB)
        self.sock.setsockopt(zmq.SNDHWM, 100000)
        self.sock.setsockopt(zmq.LINGER, 0)
        if self.mode == "zmq-direct":
            if self.port is None:
                self.port = self.sock.bind_to_random_port("tcp://127.0.0.1")
            else:
                for _ in range(200):
                    try:
                        self.sock.bind("tcp://127.0.0.1:%d" % self.port)
                        break
                    except zmq.ZMQError:
                        time.sleep(0.01)
            self.endpoint = "tcp://127.0.0.1:%d" % self.port
            self.frame0 = b"kv-events"
        else:
            self.endpoint = self.argv[0]
            self.sock.connect(self.argv[0])
            self.frame0 = subject(self.argv[1], self.argv[2], self.argv[3], "kv-events").encode()

    def close(self):
        self.sock.close(0)

    def send(self, items):
        for seq, env in items:
            head = bytes([1]) + len(env).to_bytes(4, "big")
            self.sock.send_multipart([self.frame0, self.rank.publisher_id.to_bytes(8, "big"),
                                      seq.to_bytes(8, "big"), head + env])


class NatsOut:
    """plugins-wire 6: core NATS, PUB <subject> <len>; the subject is the kv-state endpoint's (runtime-inputs 5.3)."""

    def __init__(self, rank, argv):
        self.rank = rank
        self.host, self.port = argv[0], int(argv[1])
        self.subject = subject(argv[2], argv[3], argv[4], "kv-events").encode()
        self.endpoint = "nats://%s:%d" % (self.host, self.port)
        self.sock = None
        self.file = None

    def connect(self):
        deadline = time.monotonic() + 2
        while True:
            try:
                s = socket.create_connection((self.host, self.port), timeout=5)
                f = s.makefile("rb")
                if not f.readline().startswith(b"INFO "):
                    raise OSError("no INFO")
                opts = {"verbose": False, "pedantic": False, "lang": "python-raw", "version": "1", "protocol": 1,
                        "name": "kv-worker"}
                s.sendall(b"CONNECT " + json.dumps(opts).encode() + b"\r\nPING\r\n")
                self.sock, self.file = s, f
                self.pong()
                return
            except OSError:
                self.drop()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def pong(self):
        while True:
            line = self.file.readline()
            if not line:
                raise OSError("server closed the connection")
            if line.startswith(b"PONG"):
                return
            if line.startswith(b"PING"):
                self.sock.sendall(b"PONG\r\n")
            elif line.startswith(b"-ERR"):
                raise OSError(line.decode().strip())

    def drop(self):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        self.sock, self.file = None, None

    def send(self, items):
        try:
            if self.sock is None:
                self.connect()
            batch = [b"PUB %s %d\r\n%s\r\n" % (self.subject, len(env), env) for _, env in items]
            self.sock.sendall(b"".join(batch) + b"PING\r\n")
            self.pong()
        except OSError:
            self.drop()  # the batch is lost; its sequences stay consumed, as a real publisher's would

    def close(self):
        self.drop()


def main():
    worker = int(sys.argv[1])
    n_ranks = int(sys.argv[2])
    mode = sys.argv[3]
    argv = sys.argv[4:]
    rng = random.Random()
    ranks = [Rank(worker, r, rng) for r in range(n_ranks)]
    ctx = None
    if mode.startswith("zmq"):
        import zmq
        ctx = zmq.Context(1)
        outs = [ZmqOut(ctx, r, mode, argv) for r in ranks]
    else:
        outs = [NatsOut(r, argv) for r in ranks]
        for o in outs:
            o.connect()
    out("READY " + json.dumps([{"rank": r.dp_rank, "publisher_id": r.publisher_id, "endpoint": o.endpoint}
                               for r, o in zip(ranks, outs)]))
    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd["op"]
        if op == "events":
            sent = 0
            for r, o in zip(ranks, outs):
                o.send([r.envelope(r.next_event()) for _ in range(cmd["count"])])
                sent += cmd["count"]
            out("OK %d" % sent)
        elif op == "skip":
            r = ranks[cmd["rank"]]
            for _ in range(cmd["count"]):
                r.envelope(r.next_event())
            out("OK 0")
        elif op == "rebind":
            r, o = ranks[cmd["rank"]], outs[cmd["rank"]]
            o.close()
            for _ in range(cmd["lost"]):
                r.envelope(r.next_event())
            o.open()
            out("OK 0")
        elif op == "query":
            req = cmd["req"]
            rank = next((r for r in ranks if r.dp_rank == req.get("dp_rank", 0)), None)
            ans = rank.answer(req) if rank else {"Error": "no rank %s" % req.get("dp_rank")}
            out("ANSWER " + json.dumps(ans))
        elif op == "state":
            out("STATE " + json.dumps([str(t) for r in ranks for t in r.live.values()]))
        else:
            out("ERROR unknown op " + op)
    for o in outs:
        o.close()
    if ctx is not None:
        ctx.term()


if __name__ == "__main__":
    main()
