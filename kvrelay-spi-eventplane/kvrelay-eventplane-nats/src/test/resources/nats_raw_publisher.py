# An independent NATS publisher for the kvrelay NATS event-plane tests, written from the NATS client
# protocol (INFO / CONNECT / PUB / PING / PONG over a plain TCP socket) and the spec's msgpack shapes
# (plugins-wire §2, runtime-inputs §5.6-§5.7, §8), packed by Debian's python3-msgpack. No NATS library.
#
#   publish HOST PORT SUBJECT TOPIC PUBLISHER_ID WORKER START COUNT [user:U:P | token:T]
#       publishes envelopes with sequences START..START+COUNT-1, then waits for the server's PONG
#   dump TOPIC PUBLISHER_ID WORKER START COUNT
#       prints each envelope as one hex line instead (a jnats publisher sends these bytes)
import json, socket, sys
import msgpack

M = (1 << 64) - 1


def router_event(i, worker):
    k = i % 3
    if k == 0:
        data = {"stored": {"parent_hash": None if i % 2 else (i * 31) & M,
                           "start_position": None if i % 4 else i // 4,
                           "blocks": [{"block_hash": (i * 7 + 1) & M,
                                       "tokens_hash": (i * 0x9E3779B97F4A7C15) & M,
                                       "mm_extra_info": None}]}}
    elif k == 1:
        data = {"removed": {"block_hashes": [i, M - i]}}
    else:
        data = "cleared"
    return {"worker_id": worker, "storage_tier": "device", "residency_domain": "worker",
            "event": {"event_id": i, "data": data, "dp_rank": i % 4}}


def active_load(i, worker):
    return {"worker_id": worker, "dp_rank": i % 2,
            "active_decode_blocks": i * 3 if i % 2 == 0 else None,
            "active_prefill_tokens": None, "kv_used_blocks": i * 5}


def envelope(topic, publisher, worker, seq):
    body = active_load(seq, worker) if topic == "kv_metrics" else router_event(seq, worker)
    env = {"publisher_id": publisher, "sequence": seq, "published_at": 1700000000000 + seq,
           "topic": topic, "payload": msgpack.packb(body, use_bin_type=True)}
    return msgpack.packb(env, use_bin_type=True)


def expect_pong(f, s):
    while True:
        line = f.readline()
        if not line:
            sys.exit("server closed the connection")
        if line.startswith(b"PONG"):
            return
        if line.startswith(b"PING"):
            s.sendall(b"PONG\r\n")
        elif line.startswith(b"-ERR"):
            sys.exit("server error: " + line.decode().strip())


def publish(host, port, subject, topic, publisher, worker, start, count, auth):
    s = socket.create_connection((host, int(port)), timeout=30)
    f = s.makefile("rb")
    info = f.readline()
    if not info.startswith(b"INFO "):
        sys.exit("expected INFO, got %r" % info)
    opts = {"verbose": False, "pedantic": False, "lang": "python-raw", "version": "1", "protocol": 1,
            "name": "raw-publisher"}
    if auth.startswith("user:"):
        _, user, password = auth.split(":", 2)
        opts["user"], opts["pass"] = user, password
    elif auth.startswith("token:"):
        opts["auth_token"] = auth[len("token:"):]
    s.sendall(b"CONNECT " + json.dumps(opts).encode() + b"\r\nPING\r\n")
    expect_pong(f, s)
    subj = subject.encode()
    batch = []
    for seq in range(start, start + count):
        body = envelope(topic, publisher, worker, seq)
        batch.append(b"PUB %s %d\r\n%s\r\n" % (subj, len(body), body))
        if len(batch) == 256:
            s.sendall(b"".join(batch))
            batch = []
    batch.append(b"PING\r\n")
    s.sendall(b"".join(batch))
    expect_pong(f, s)
    s.close()
    print("PUBLISHED %d" % count)


def main(argv):
    if argv[0] == "publish":
        host, port, subject, topic, publisher, worker, start, count = argv[1:9]
        auth = argv[9] if len(argv) > 9 else ""
        publish(host, port, subject, topic, int(publisher), int(worker), int(start), int(count), auth)
    elif argv[0] == "dump":
        topic, publisher, worker, start, count = argv[1:6]
        out = sys.stdout
        for seq in range(int(start), int(start) + int(count)):
            out.write(envelope(topic, int(publisher), int(worker), seq).hex())
            out.write("\n")
        out.flush()
    else:
        sys.exit("unknown mode " + argv[0])


main(sys.argv[1:])
