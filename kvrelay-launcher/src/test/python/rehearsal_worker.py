#!/usr/bin/python3
"""One Dynamo worker process of the seed rehearsal (issue 12), written from the kvrelay spec, not from the Java code.
It advertises itself in a real etcd the way a Dynamo runtime does (runtime-inputs 1.2-1.4, 2.1-2.2: one primary
lease whose id is the instance id, keys under it, kept alive) through etcd's JSON gateway, and publishes its KV
events over raw-socket NATS with kv_worker.py's Rank / NatsOut (the true state of its rank stays here).

  rehearsal_worker.py <etcd_url> <namespace> <component> <model> <worker_type> <needs|-> <lora_suffix:lora_name|->
                      nats <host> <port> | zmq

needs: roles separated by "," (one alternative), or "-" for none.
stdout: "READY <instance_id>" once every key is written, then one reply line per command.
zmq: one PUB bound on tcp://127.0.0.1:<random> (kv_worker's zmq-direct), advertised as the rank's EventChannel.
stdin: {"op":"events","count":n} -> "OK <sent>";  {"op":"rebind","lost":n} (zmq) close the PUB, n events while
it is down (lost), bind the same port again -> "OK 0";  {"op":"state"} -> "STATE <json list of live tokens hashes>".

Recovery (runtime-inputs 6): the rank's worker_kv_indexer_query_dp0 endpoint on the TCP request plane
(plugins-wire 1: request frame, ACK, then a response stream dialled back to the caller), answered from the rank's
true state by kv_worker.Rank.answer; advertised as an Endpoint instance and as the event source's recovery_target.
"""
import base64
import json
import os
import random
import socket
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                                "kvrelay-spi-eventplane", "src", "test", "python"))
import kv_worker  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                                "kvrelay-spi-eventplane", "kvrelay-requestplane-tcp", "src", "test", "resources",
                                "python"))
import tcp_worker  # noqa: E402  (its frame helpers only: recv_exact, two_part, parse_two_part, jdump, ack)

LOCK = threading.Lock()  # the rank's state: mutated by the stdin loop, read by recovery answers

TTL = 10


def gateway(url, path, body):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.loads(r.readline() or b"{}")


def b64(s):
    return base64.b64encode(s.encode()).decode()


def put(url, key, value, lease):
    gateway(url, "/v3/kv/put", {"key": b64(key), "value": b64(value), "lease": str(lease)})


def keepalive(url, lease):
    while True:
        time.sleep(TTL / 3)
        try:
            gateway(url, "/v3/lease/keepalive", {"ID": str(lease)})
        except Exception:  # etcd down (the etcd-restart fault): retried on the next tick
            pass


def serve_recovery(srv, rank):
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve_conn, args=(conn, rank), daemon=True).start()


def serve_conn(conn, rank):
    t = tcp_worker
    try:
        while True:
            try:
                (plen,) = t.struct.unpack(">H", t.recv_exact(conn, 2))
            except EOFError:
                return
            t.recv_exact(conn, plen)
            (hlen,) = t.struct.unpack(">H", t.recv_exact(conn, 2))
            t.recv_exact(conn, hlen)
            (paylen,) = t.struct.unpack(">I", t.recv_exact(conn, 4))
            header, body, _ = t.parse_two_part(t.recv_exact(conn, paylen))
            ctl = json.loads(header)
            info = json.loads(ctl["connection_info"]["info"])
            req = json.loads(body)
            conn.sendall(t.ack(""))
            threading.Thread(target=call_home, args=(info, req, rank), daemon=True).start()
    except Exception as e:  # noqa: BLE001
        sys.stderr.write("recovery connection: %r\n" % e)
    finally:
        conn.close()


def call_home(info, req, rank):
    t = tcp_worker
    host, port = info["address"].rsplit(":", 1)
    s = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
    try:
        s.sendall(t.two_part(t.jdump({"subject": info["subject"], "stream_type": "response"})))
        s.sendall(t.two_part(t.jdump({"error": None})))
        with LOCK:
            answer = rank.answer(req)
        s.sendall(t.two_part(b"", t.jdump({"data": answer, "complete_final": False})))
        s.sendall(t.two_part(b"", t.jdump({"complete_final": True})))
        s.sendall(t.two_part(t.jdump("sentinel")))
        s.settimeout(10)
        try:
            while s.recv(4096):
                pass
        except OSError:
            pass
    except Exception as e:  # noqa: BLE001
        sys.stderr.write("recovery answer: %r\n" % e)
    finally:
        s.close()


def main():
    etcd, ns, comp, model, wtype, needs, lora, mode = sys.argv[1:9]
    argv = sys.argv[9:]
    lease = int(gateway(etcd, "/v3/lease/grant", {"TTL": TTL})["ID"])
    threading.Thread(target=keepalive, args=(etcd, lease), daemon=True).start()
    rng = random.Random()
    rank = kv_worker.Rank(lease, 0, rng)
    ctx = None
    if mode == "zmq":
        import zmq
        ctx = zmq.Context(1)
        o = kv_worker.ZmqOut(ctx, rank, "zmq-direct", [])
    else:
        o = kv_worker.NatsOut(rank, argv + [ns, comp, "generate"])
        o.connect()
    hexid = "%x" % lease
    ep = {"namespace": ns, "component": comp, "endpoint": "generate"}
    epid = {"namespace": ns, "component": comp, "name": "generate"}
    inst = dict(ep, instance_id=lease, transport={"tcp": "127.0.0.1:9/generate"}, request_plane_codec="json")
    path = "%s/%s/generate/%s" % (ns, comp, hexid)
    put(etcd, "v1/instances/" + path, json.dumps(dict(inst, type="Endpoint")), lease)
    role = {"worker_type": wtype}
    if needs != "-":
        role["needs"] = [needs.split(",")]
    card = dict({"display_name": model, "kv_cache_block_size": 16,
                 "runtime_config": {"data_parallel_start_rank": 0, "data_parallel_size": 1,
                                    "total_kv_blocks": 1000}}, **role)
    put(etcd, "v1/mdc/" + path, json.dumps(dict(ep, type="Model", instance_id=lease, card_json=card)), lease)
    if lora != "-":
        suffix, name = lora.split(":")
        acard = dict({"display_name": model + "-" + suffix, "kv_cache_block_size": 16,
                      "lora": {"name": name, "max_gpu_lora_count": 4}}, **role)
        put(etcd, "v1/mdc/" + path + "/" + suffix,
            json.dumps(dict(ep, type="Model", instance_id=lease, card_json=acard, model_suffix=suffix)), lease)
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    threading.Thread(target=serve_recovery, args=(srv, rank), daemon=True).start()
    qname = "worker_kv_indexer_query_dp0"
    qinst = {"namespace": ns, "component": comp, "endpoint": qname, "instance_id": lease,
             "transport": {"tcp": "127.0.0.1:%d/%s" % (srv.getsockname()[1], qname)}, "request_plane_codec": "json"}
    put(etcd, "v1/instances/%s/%s/%s/%s" % (ns, comp, qname, hexid), json.dumps(dict(qinst, type="Endpoint")), lease)
    pub = rank.publisher_id
    src = {"type": "EventSource", "scope": {"kind": "endpoint", "endpoint": epid}, "topic": "kv-events",
           "publisher_id": pub, "metadata": {"kv_state_endpoint": epid, "worker": {"worker_id": lease, "dp_rank": 0},
                                             "publisher_id": pub, "recovery_target": qinst}}
    put(etcd, "v1/event_sources/namespace/%s/component/%s/endpoint/generate/topic/kv-events/%x" % (ns, comp, pub),
        json.dumps(src), lease)
    if mode == "zmq":
        chan = {"type": "EventChannel", "scope": {"kind": "endpoint", "endpoint": epid}, "topic": "kv-events",
                "instance_id": pub, "transport": {"kind": "Zmq", "config": {"endpoint": o.endpoint}}}
        put(etcd, "v1/event_channels/namespace/%s/component/%s/endpoint/generate/topic/kv-events/%x"
            % (ns, comp, pub), json.dumps(chan), lease)
    kv_worker.out("READY %d" % lease)
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["op"] == "events":
            with LOCK:
                batch = [rank.envelope(rank.next_event()) for _ in range(cmd["count"])]
            o.send(batch)
            kv_worker.out("OK %d" % cmd["count"])
        elif cmd["op"] == "rebind":
            o.close()
            with LOCK:
                for _ in range(cmd["lost"]):
                    rank.envelope(rank.next_event())
            o.open()
            kv_worker.out("OK 0")
        elif cmd["op"] == "state":
            with LOCK:
                live = [str(t) for t in rank.live.values()]
            kv_worker.out("STATE " + json.dumps(live))
        else:
            kv_worker.out("ERROR unknown op " + cmd["op"])
    o.close()
    if ctx is not None:
        ctx.term()


if __name__ == "__main__":
    main()
