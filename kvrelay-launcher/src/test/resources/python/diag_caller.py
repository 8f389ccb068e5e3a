#!/usr/bin/python3
"""Independent caller of the relay's diagnostic endpoints, written from the spec (not from the Java code).

  diag_caller.py component <dc_id>
      prints "COMPONENT kv_dc_relay_<first 32 hex of sha256(utf-8 dc_id)>" (producer.md section 7.5)
  diag_caller.py discover <file kv root> <namespace> <component>
      reads Dynamo's file KV store (plugins-wire.md section 8): bucket directory <root>/v1/instances, one file per
      key whose name is the key percent-encoded, ".tmp_" files skipped, the value the raw DiscoveryInstance JSON
      (runtime-inputs.md section 1.2); prints "ENDPOINT <endpoint> <tcp transport> <instance id hex>" per
      Endpoint instance of <namespace>/<component>, sorted by endpoint
  diag_caller.py call <transport> <body> [<transport> <body> ...]
      <transport> is an advertised {"tcp": ...} string "ip:port/<path>" (plugins-wire.md section 3: the caller
      splits at the first "/" and sends the rest verbatim); <body> is JSON text, or "!raw <text>" to send <text>
      as the body unchanged. Speaks the TCP request plane of plugins-wire.md section 1: a response listener on
      127.0.0.1, one request frame per call pipelined on ONE connection, ACKs read FIFO, then per accepted request
      the call-home: handshake -> header-only prologue -> data-only items -> complete_final -> header-only
      "sentinel"; then FIN and close. Prints one "RESULT <json>" per call in order, then "DONE".
"""
import hashlib
import json
import os
import socket
import struct
import sys
import urllib.parse
import uuid


def recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise EOFError("closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return bytes(buf)


def two_part(header=b"", body=b""):
    # header_len u64 BE, body_len u64 BE, checksum u64 BE (0 is always accepted), header, body
    return struct.pack(">QQQ", len(header), len(body), 0) + header + body


def read_two_part(sock):
    hl, bl, _ = struct.unpack(">QQQ", recv_exact(sock, 24))
    return recv_exact(sock, hl), recv_exact(sock, bl)


def jdump(v):
    return json.dumps(v, separators=(",", ":")).encode()


def call(pairs):
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(16)
    lst.settimeout(30)
    address = "127.0.0.1:%d" % lst.getsockname()[1]
    server = None
    requests = []
    for transport, body in pairs:
        t = transport[len("tcp://"):] if transport.startswith("tcp://") else transport
        host_port, path = t.split("/", 1)
        if server is None:
            server = host_port
        assert server == host_port, "all calls go to one server"
        body_bytes = body[len("!raw "):].encode() if body.startswith("!raw ") else body.encode()
        rid = str(uuid.uuid4())
        subject = str(uuid.uuid4())
        info = {"address": address, "subject": subject, "context": rid, "stream_type": "response"}
        ctl = {"id": rid, "request_type": "single_in", "response_type": "many_out", "payload_codec": "json",
               "connection_info": {"transport": "tcp_server", "info": json.dumps(info, separators=(",", ":"))}}
        payload = two_part(jdump(ctl), body_bytes)
        hdr = jdump({"x-endpoint-path": path, "request-id": rid})
        p = path.encode()
        frame = (struct.pack(">H", len(p)) + p + struct.pack(">H", len(hdr)) + hdr
                 + struct.pack(">I", len(payload)) + payload)
        requests.append({"path": path, "subject": subject, "frame": frame})
    host, port = server.rsplit(":", 1)
    conn = socket.create_connection((host, int(port)), timeout=30)
    conn.sendall(b"".join(r["frame"] for r in requests))
    for r in requests:
        (n,) = struct.unpack(">I", recv_exact(conn, 4))
        r["ack"] = recv_exact(conn, n).decode()
    by_subject = {r["subject"]: r for r in requests if r["ack"] == ""}
    for _ in range(len(by_subject)):
        s, _ = lst.accept()
        s.settimeout(30)
        h, b = read_two_part(s)
        hs = json.loads(h)
        r = by_subject[hs["subject"]]
        r["framing_ok"] = b == b"" and hs.get("stream_type") == "response"
        h, b = read_two_part(s)
        r["prologue"] = json.loads(h)
        r["framing_ok"] = r["framing_ok"] and b == b""
        items = []
        if r["prologue"].get("error") is None:
            while True:
                h, b = read_two_part(s)
                r["framing_ok"] = r["framing_ok"] and h == b""
                w = json.loads(b)
                if w.get("complete_final"):
                    break
                items.append(w["data"])
            h, b = read_two_part(s)
            r["framing_ok"] = r["framing_ok"] and json.loads(h) == "sentinel" and b == b""
        r["items"] = items
        s.shutdown(socket.SHUT_WR)
        s.close()
    conn.close()
    for r in requests:
        del r["frame"]
        del r["subject"]
        print("RESULT " + json.dumps(r, separators=(",", ":")), flush=True)
    print("DONE", flush=True)


def discover(root, namespace, component):
    bucket = os.path.join(root, "v1", "instances")
    found = []
    for name in os.listdir(bucket):
        if name.startswith(".tmp_"):
            continue
        key = urllib.parse.unquote(name)
        parts = key.split("/")
        if len(parts) != 4 or parts[0] != namespace or parts[1] != component:
            continue
        with open(os.path.join(bucket, name), "rb") as f:
            value = json.loads(f.read())
        assert value["type"] == "Endpoint", value
        assert (value["namespace"], value["component"], value["endpoint"]) == tuple(parts[:3]), value
        assert "%x" % value["instance_id"] == parts[3], value
        found.append((value["endpoint"], value["transport"]["tcp"], parts[3], value.get("request_plane_codec")))
    for endpoint, transport, iid, codec in sorted(found):
        print("ENDPOINT %s %s %s %s" % (endpoint, transport, iid, codec), flush=True)
    print("DONE", flush=True)


def main():
    if sys.argv[1] == "component":
        digest = hashlib.sha256(sys.argv[2].encode("utf-8")).hexdigest()
        print("COMPONENT kv_dc_relay_" + digest[:32], flush=True)
    elif sys.argv[1] == "discover":
        discover(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "call":
        call(list(zip(sys.argv[2::2], sys.argv[3::2])))
    else:
        raise SystemExit("unknown mode " + sys.argv[1])


if __name__ == "__main__":
    main()
