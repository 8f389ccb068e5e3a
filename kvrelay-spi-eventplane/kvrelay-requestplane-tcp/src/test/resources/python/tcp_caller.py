#!/usr/bin/python3
"""Independent TCP request-plane caller, written from plugins-wire.md section 1 (not from the Java code).

Usage: tcp_caller.py <server host:port> <path> <json body> [<path> <json body> ...]
(a body of "!badcontext <json>", "!msgpack <json>" or "!empty" sends that defect)
Runs a response listener on 127.0.0.1, pipelines one request frame per (path, body) on ONE connection, reads
the ACKs (FIFO), then for every accepted request accepts the worker's call-home and checks the sequence
handshake -> header-only prologue -> data-only items -> complete_final -> header-only "sentinel"; then shuts
down its write side (FIN) and closes. Prints one "RESULT <json>" per request in request order, then "DONE".
"""
import json
import socket
import struct
import sys
import uuid


def recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError("closed after %d of %d bytes" % (len(buf), n))
        buf += chunk
    return bytes(buf)


def two_part(header=b"", body=b""):
    return struct.pack(">QQQ", len(header), len(body), 0) + header + body


def read_two_part(sock):
    hl, bl, _ = struct.unpack(">QQQ", recv_exact(sock, 24))
    return recv_exact(sock, hl), recv_exact(sock, bl)


def jdump(v):
    return json.dumps(v, separators=(",", ":")).encode()


def main():
    server = sys.argv[1]
    pairs = list(zip(sys.argv[2::2], sys.argv[3::2]))
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(16)
    lst.settimeout(20)
    address = "127.0.0.1:%d" % lst.getsockname()[1]
    host, port = server.rsplit(":", 1)
    conn = socket.create_connection((host, int(port)), timeout=20)
    requests = []
    for path, body in pairs:
        rid = str(uuid.uuid4())
        subject = str(uuid.uuid4())
        context, codec = rid, "json"
        # deliberate defects: "!badcontext <body>", "!msgpack <body>", "!empty"
        if body.startswith("!badcontext "):
            context, body = "not-" + rid, body[len("!badcontext "):]
        elif body.startswith("!msgpack "):
            codec, body = "msgpack", body[len("!msgpack "):]
        elif body == "!empty":
            body = ""
        info = {"address": address, "subject": subject, "context": context, "stream_type": "response"}
        ctl = {"id": rid, "request_type": "single_in", "response_type": "many_out", "payload_codec": codec,
               "connection_info": {"transport": "tcp_server", "info": json.dumps(info, separators=(",", ":"))}}
        payload = two_part(jdump(ctl), body.encode())
        hdr = jdump({"x-endpoint-path": path, "request-id": rid})
        p = path.encode()
        frame = struct.pack(">H", len(p)) + p + struct.pack(">H", len(hdr)) + hdr + struct.pack(">I", len(payload)) + payload
        requests.append({"path": path, "id": rid, "subject": subject, "frame": frame})
    conn.sendall(b"".join(r["frame"] for r in requests))  # pipelined on one connection
    for r in requests:
        (n,) = struct.unpack(">I", recv_exact(conn, 4))
        r["ack"] = recv_exact(conn, n).decode()
    by_subject = {r["subject"]: r for r in requests if r["ack"] == ""}
    for _ in range(len(by_subject)):
        s, _ = lst.accept()
        s.settimeout(20)
        h, b = read_two_part(s)
        hs = json.loads(h)
        r = by_subject[hs["subject"]]
        seq = []
        r["handshake"] = hs
        r["handshake_header_only"] = (b == b"")
        h, b = read_two_part(s)
        r["prologue"] = json.loads(h)
        r["prologue_header_only"] = (b == b"")
        items = []
        if r["prologue"].get("error") is None:
            while True:
                h, b = read_two_part(s)
                seq.append("header" if h else "data")
                item = json.loads(b)
                items.append(item)
                if item.get("complete_final"):
                    break
            h, b = read_two_part(s)
            r["sentinel"] = json.loads(h) if h else None
            r["sentinel_has_data"] = (b != b"")
        r["items"] = items
        r["item_frames"] = seq
        s.shutdown(socket.SHUT_WR)
        s.close()
    conn.close()
    for r in requests:
        del r["frame"]
        print("RESULT " + json.dumps(r, separators=(",", ":")), flush=True)
    print("DONE", flush=True)


if __name__ == "__main__":
    main()
