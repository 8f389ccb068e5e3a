#!/usr/bin/python3
"""An independent Dynamo file-KV worker, written from plugins-wire.md section 8 (stdlib only).

It plays one Dynamo process using DYN_DISCOVERY_BACKEND=file: a random 64-bit connection id, one file per key
in root/<bucket>/, named by percent-encoding every byte outside [A-Za-z0-9] as %XX (uppercase), holding the raw
DiscoveryInstance JSON. Writes go to .tmp_<16 hex> in the same directory, then are published by a hard link
(create) or a rename (update). A keep-alive thread sets the mtime of its own files every max(ttl/3, 1 s) and
deletes every file older than the TTL in the directories it writes to. Shutdown deletes its own files; being
killed leaves them behind to expire.

Usage: file_kv_worker.py ROOT TTL_SECONDS
Commands, one JSON object per stdin line; each answers one stdout line, "ok <op> ..." or "err <op> <why>":
  {"op":"id"}                                          -> ok id <connection id, lowercase hex>
  {"op":"register_endpoint","namespace","component","endpoint","address"}
                                                       -> ok register_endpoint <key>
  {"op":"register_model","namespace","component","endpoint","display_name"}
                                                       -> ok register_model <key>
  {"op":"put","bucket","key","value"}                  -> ok put <file name>   (value: raw text)
  {"op":"put_name","bucket","name","value"}            -> ok put_name          (a raw file name, no encoding)
  {"op":"delete","bucket","key"}                       -> ok delete
  {"op":"read","bucket"}                               -> ok read <JSON object: decoded key -> value text>
  {"op":"sweep","enabled":true|false}                  -> ok sweep   (test knob: hold or resume deleting others'
                                                          expired files; the keep-alive of its own goes on)
  {"op":"shutdown"}                                    -> ok shutdown, then exit
End of input: exit without cleanup (like a crash).
"""
import json
import os
import random
import sys
import threading
import time

UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
TEMP_PREFIX = ".tmp_"


def encode_key(key):
    return "".join(chr(b) if b in UNRESERVED else "%%%02X" % b for b in key.encode("utf-8"))


def decode_name(name):
    out = bytearray()
    i = 0
    while i < len(name):
        if name[i] == "%":
            out.append(int(name[i + 1:i + 3], 16))
            i += 3
        else:
            out.extend(name[i].encode("utf-8"))
            i += 1
    return out.decode("utf-8")


class Store:
    def __init__(self, root, ttl):
        self.root = root
        self.ttl = ttl
        self.connection_id = random.getrandbits(64) or 1
        self.owned = set()
        self.dirs = set()
        self.lock = threading.Lock()
        self.sweep = True

    def bucket_dir(self, bucket):
        d = os.path.join(self.root, *bucket.split("/"))
        os.makedirs(d, exist_ok=True)
        self.dirs.add(d)
        return d

    def write_file(self, d, target, value):
        for _ in range(16):
            temp = os.path.join(d, TEMP_PREFIX + "%016x" % random.getrandbits(64))
            try:
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                break
            except FileExistsError:
                continue
        else:
            raise RuntimeError("no unique temp file name")
        with os.fdopen(fd, "wb") as f:
            f.write(value)
        if target in self.owned:
            os.rename(temp, target)
        else:
            try:
                os.link(temp, target)
                os.unlink(temp)
            except FileExistsError:
                os.rename(temp, target)
        self.owned.add(target)

    def put(self, bucket, key, value):
        with self.lock:
            d = self.bucket_dir(bucket)
            name = encode_key(key)
            self.write_file(d, os.path.join(d, name), value)
            return name

    def put_name(self, bucket, name, value):
        with self.lock:
            d = self.bucket_dir(bucket)
            self.write_file(d, os.path.join(d, name), value)

    def delete(self, bucket, key):
        with self.lock:
            target = os.path.join(self.bucket_dir(bucket), encode_key(key))
            self.owned.discard(target)
            os.unlink(target)

    def read(self, bucket):
        d = os.path.join(self.root, *bucket.split("/"))
        deadline = time.time() - self.ttl
        out = {}
        for entry in os.scandir(d):
            if entry.name.startswith(TEMP_PREFIX) or not entry.is_file(follow_symlinks=False):
                continue
            if entry.stat().st_mtime < deadline:
                continue
            with open(entry.path, "rb") as f:
                out[bucket + "/" + decode_name(entry.name)] = f.read().decode("utf-8")
        return out

    def keep_alive(self):
        with self.lock:
            for path in list(self.owned):
                try:
                    os.utime(path, None)
                except FileNotFoundError:
                    pass
            if not self.sweep:
                return
            deadline = time.time() - self.ttl
            for d in self.dirs:
                for entry in os.scandir(d):
                    try:
                        if entry.is_file(follow_symlinks=False) and entry.stat().st_mtime < deadline:
                            os.unlink(entry.path)
                    except FileNotFoundError:
                        pass

    def shutdown(self):
        with self.lock:
            for path in list(self.owned):
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
            self.owned.clear()


def keep_alive_loop(store):
    period = max(store.ttl / 3.0, 1.0)
    while True:
        time.sleep(period)
        store.keep_alive()


def endpoint_json(store, cmd):
    return {
        "type": "Endpoint",
        "namespace": cmd["namespace"],
        "component": cmd["component"],
        "endpoint": cmd["endpoint"],
        "instance_id": store.connection_id,
        "transport": {"tcp": cmd["address"]},
        "request_plane_codec": "msgpack",
    }


def model_json(store, cmd):
    return {
        "type": "Model",
        "namespace": cmd["namespace"],
        "component": cmd["component"],
        "endpoint": cmd["endpoint"],
        "instance_id": store.connection_id,
        "card_json": {
            "display_name": cmd["display_name"],
            "kv_cache_block_size": 16,
            "runtime_config": {"taints": []},
        },
    }


def instance_key(store, cmd):
    return "%s/%s/%s/%x" % (cmd["namespace"], cmd["component"], cmd["endpoint"], store.connection_id)


def main():
    root, ttl = sys.argv[1], float(sys.argv[2])
    store = Store(root, ttl)
    threading.Thread(target=keep_alive_loop, args=(store,), daemon=True).start()
    print("ready %x" % store.connection_id, flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        cmd = json.loads(line)
        op = cmd.get("op")
        try:
            if op == "id":
                reply = "%x" % store.connection_id
            elif op == "register_endpoint":
                key = instance_key(store, cmd)
                store.put("v1/instances", key, json.dumps(endpoint_json(store, cmd)).encode("utf-8"))
                reply = key
            elif op == "register_model":
                key = instance_key(store, cmd)
                store.put("v1/mdc", key, json.dumps(model_json(store, cmd)).encode("utf-8"))
                reply = key
            elif op == "put":
                reply = store.put(cmd["bucket"], cmd["key"], cmd["value"].encode("utf-8"))
            elif op == "put_name":
                store.put_name(cmd["bucket"], cmd["name"], cmd["value"].encode("utf-8"))
                reply = ""
            elif op == "delete":
                store.delete(cmd["bucket"], cmd["key"])
                reply = ""
            elif op == "sweep":
                with store.lock:
                    store.sweep = bool(cmd["enabled"])
                reply = ""
            elif op == "read":
                reply = json.dumps(store.read(cmd["bucket"]), sort_keys=True)
            elif op == "shutdown":
                store.shutdown()
                print("ok shutdown", flush=True)
                return
            else:
                raise ValueError("unknown op")
            print(("ok %s %s" % (op, reply)).rstrip(), flush=True)
        except Exception as e:  # reported to the test, which fails on it
            print("err %s %s" % (op, repr(e).replace("\n", " ")), flush=True)
    os._exit(0)


if __name__ == "__main__":
    main()
