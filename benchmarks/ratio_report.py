#!/usr/bin/python3
"""Ratio table for issue 14: ours vs best peer vs this machine's memory ceiling, from JMH JSON results.

Usage: /usr/bin/python3 benchmarks/ratio_report.py RESULTS.json [MORE.json ...] [--log JMH_STDOUT.log ...]

Reads the JMH JSON (-rf json -rff FILE) of PeerFilterBenchmark, OwnershipMapBenchmark and
MemoryLatencyBenchmark and prints Markdown tables. The optional JMH stdout logs supply the [bits] lines
(filter bits per key) and [bytes] lines (retained heap per mapping) the fixtures print per setup.

Memory ceiling of an operation = (misses/s of MemoryLatencyBenchmark.chaseK at the operation's size)
/ (cache misses the operation needs), K = how many of those misses are independent (can be in flight
together). Two ceilings are printed:
  * serial ceiling: one operation at a time, chaseK with K = the operation's independent misses;
  * MLP ceiling: chase16 (16 loads in flight, i.e. several operations overlapped by the out-of-order core)
    divided by the misses per operation; a batch of independent operations can at best reach this.
"""
import json
import re
import sys

# operation -> (misses needed, independent misses, why). "Needed" is what the operation requires at
# minimum on any layout, not what a given implementation happens to touch.
MISSES = {
    "containsHit": (2, 2, "a cuckoo lookup reads both candidate buckets; both addresses come from the hash, so the 2 loads are independent (worst case; a hit found in the first bucket may need only 1)"),
    "containsMiss": (2, 2, "a miss must read both candidate buckets, independent"),
    "fillToLoad": (2, 2, "an insert reads both candidate buckets (independent) and writes into one of them; kicks add dependent misses near high load, not counted"),
    "insertRemovePair": (2, 2, "the insert's 2 independent bucket reads; the remove touches the same, now cached, lines"),
    "get": (1, 1, "a key->value map needs at least one line (key and value side by side); ours and fastutil keep keys[] and values[] apart and touch 2 lines"),
    "getMiss": (1, 1, "a miss reads the key's home slot (Robin Hood / linear probing stop there at low displacement)"),
    "putRemove": (2, 2, "the put's home slot and the removed key's home slot: 2 lines, independent of each other"),
}

FILTER_PEERS = ["fastfilterCuckoo16", "fastfilterCuckooPlus16", "cuckoofilter4j"]
MAP_GROUPS = {
    "oursLineage": ["fastutilLong2Long", "agronaLong2Long"],
    "oursOwners": ["fastutilLong2Int", "fastutilLong2Long", "agronaLong2Long"],
}
# mappings -> memory table size (words of 8 bytes) whose rate bounds the map: 2^16 mappings (~1-2 MiB of
# arrays) -> the 4 MiB row; 2^20 mappings (~16-28 MiB, more than this machine's L2 and about its L3,
# shared with the other builds) -> the 128 MiB DRAM row.
MAP_MEMORY_SIZE = {"65536": "524288", "1048576": "16777216"}


def load(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            rows.extend(json.load(f))
    return rows


def parse_logs(paths):
    bits, bytes_ = {}, {}
    for p in paths:
        with open(p, errors="replace") as f:
            for line in f:
                m = re.search(r"\[bits\] impl=(\S+) buckets=(\d+) load=(\S+) keys=(\d+) bits=(\d+) bitsPerKey=(\S+)", line)
                if m:
                    bits[(m.group(1), m.group(2), m.group(3))] = float(m.group(6))
                m = re.search(r"\[bytes\] impl=(\S+) mappings=(\d+) retainedHeapDelta=(-?\d+) bytesPerMapping=(\S+)", line)
                if m:
                    bytes_[(m.group(1), m.group(2))] = float(m.group(4))
    return bits, bytes_


def fmt(x):
    if x is None:
        return "–"
    if x >= 1e6:
        return "%.1f M" % (x / 1e6)
    if x >= 1e3:
        return "%.1f k" % (x / 1e3)
    return "%.2f" % x


def ratio(a, b):
    return "–" if a is None or not b else "%.2f" % (a / b)


def main(argv):
    jsons, logs, it = [], [], iter(argv)
    for a in it:
        if a == "--log":
            logs.append(next(it))
        else:
            jsons.append(a)
    if not jsons:
        sys.exit(__doc__)
    rows = load(jsons)
    bits, bytes_ = parse_logs(logs)

    mem = {}  # (buckets, k) -> (score, error)
    filt = {}  # (op, buckets, load, impl) -> (score, error)
    maps = {}  # (op, mappings, impl) -> (score, error)
    for r in rows:
        cls, op = r["benchmark"].rsplit(".", 2)[-2:]
        p = r.get("params", {})
        s = r["primaryMetric"]
        val = (s["score"], s.get("scoreError") if s.get("scoreError") == s.get("scoreError") else None)
        if cls == "MemoryLatencyBenchmark":
            mem[(p["buckets"], int(op[len("chase"):]))] = val
        elif cls in ("PeerFilterBenchmark", "Pair", "Fill"):
            score, err = val
            if op == "fillToLoad":  # fills/s -> inserts/s
                keys = round(float(p["load"]) * 4 * int(p["buckets"]))
                score, err = score * keys, (err or 0) * keys
            filt[(op, p["buckets"], p["load"], p["impl"])] = (score, err)
        elif cls == "OwnershipMapBenchmark":
            maps[(op, p["mappings"], p["impl"])] = val

    out = []
    if mem:
        out.append("### Memory: random 8-byte loads (MemoryLatencyBenchmark)\n")
        out.append("| table | k chains | loads/s | ns per load |")
        out.append("|---|---:|---:|---:|")
        for (b, k), (s, e) in sorted(mem.items(), key=lambda kv: (int(kv[0][0]), kv[0][1])):
            out.append("| %s KiB | %d | %s ± %s | %.2f |" % (int(b) * 8 // 1024, k, fmt(s), fmt(e), 1e9 / s))
        out.append("")

    def ceilings(op, size):
        need, indep, _ = MISSES[op]
        k_serial = min(16, indep)
        serial = mem.get((size, k_serial))
        mlp = mem.get((size, 16))
        return (serial[0] / need if serial else None, mlp[0] / need if mlp else None)

    if filt:
        out.append("### Cuckoo filters (PeerFilterBenchmark), ops/s; bits/key in brackets\n")
        out.append("| op | buckets | load | ours (ckf) | best peer | ours ÷ best peer | serial ceiling | ours ÷ serial ceiling | MLP ceiling | ours ÷ MLP ceiling |")
        out.append("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
        keys = sorted({(op, b, l) for (op, b, l, _) in filt}, key=lambda t: (t[0], int(t[1]), float(t[2])))
        for op, b, l in keys:
            ours = filt.get((op, b, l, "ckf"))
            peers = [(filt[(op, b, l, i)][0], i) for i in FILTER_PEERS if (op, b, l, i) in filt]
            best = max(peers) if peers else None
            ser, mlp = ceilings(op, b)
            def bk(i):
                v = bits.get((i, b, l))
                return " [%.1f]" % v if v is not None else ""
            peer_txt = "%s %s%s" % (best[1], fmt(best[0]), bk(best[1])) if best else "none (no peer supports it)"
            out.append("| %s | %s | %s | %s ± %s%s | %s | %s | %s | %s | %s | %s |" % (
                op, b, l, fmt(ours[0]) if ours else "–", fmt(ours[1]) if ours else "–", bk("ckf"), peer_txt,
                ratio(ours[0] if ours else None, best[0] if best else None),
                fmt(ser), ratio(ours[0] if ours else None, ser), fmt(mlp), ratio(ours[0] if ours else None, mlp)))
        out.append("")
        out.append("All peers, ops/s:\n")
        out.append("| op | buckets | load | impl | ops/s | bits/key |")
        out.append("|---|---:|---:|---|---:|---:|")
        for (op, b, l, i), (s, e) in sorted(filt.items(), key=lambda kv: (kv[0][0], int(kv[0][1]), kv[0][2], kv[0][3])):
            v = bits.get((i, b, l))
            out.append("| %s | %s | %s | %s | %s ± %s | %s |" % (op, b, l, i, fmt(s), fmt(e), "%.2f" % v if v is not None else "–"))
        out.append("")

    if maps:
        out.append("### Exact-ownership maps (OwnershipMapBenchmark), ops/s; retained bytes/mapping in brackets\n")
        out.append("| map | op | mappings | ours | best peer | ours ÷ best peer | serial ceiling | ours ÷ serial ceiling | MLP ceiling | ours ÷ MLP ceiling |")
        out.append("|---|---|---:|---:|---|---:|---:|---:|---:|---:|")
        for ours_impl, peer_impls in MAP_GROUPS.items():
            for op, m in sorted({(op, m) for (op, m, _) in maps}, key=lambda t: (t[0], int(t[1]))):
                ours = maps.get((op, m, ours_impl))
                peers = [(maps[(op, m, i)][0], i) for i in peer_impls if (op, m, i) in maps]
                best = max(peers) if peers else None
                ser, mlp = ceilings(op, MAP_MEMORY_SIZE.get(m, ""))
                def by(i):
                    v = bytes_.get((i, m))
                    return " [%.1f B]" % v if v is not None else ""
                out.append("| %s | %s | %s | %s ± %s%s | %s | %s | %s | %s | %s | %s |" % (
                    ours_impl, op, m, fmt(ours[0]) if ours else "–", fmt(ours[1]) if ours else "–", by(ours_impl),
                    "%s %s%s" % (best[1], fmt(best[0]), by(best[1])) if best else "–",
                    ratio(ours[0] if ours else None, best[0] if best else None),
                    fmt(ser), ratio(ours[0] if ours else None, ser), fmt(mlp), ratio(ours[0] if ours else None, mlp)))
        out.append("")
        out.append("All maps, ops/s:\n")
        out.append("| op | mappings | impl | ops/s | retained B/mapping |")
        out.append("|---|---:|---|---:|---:|")
        for (op, m, i), (s, e) in sorted(maps.items(), key=lambda kv: (kv[0][0], int(kv[0][1]), kv[0][2])):
            v = bytes_.get((i, m))
            out.append("| %s | %s | %s | %s ± %s | %s |" % (op, m, i, fmt(s), fmt(e), "%.1f" % v if v is not None else "–"))
        out.append("")

    out.append("### Misses assumed per operation\n")
    out.append("| op | misses | independent | why |")
    out.append("|---|---:|---:|---|")
    for op, (need, indep, why) in MISSES.items():
        out.append("| %s | %d | %d | %s |" % (op, need, indep, why))
    out.append("")
    out.append("Map sizes use the memory row: " + ", ".join(
        "%s mappings -> %s KiB table" % (m, int(w) * 8 // 1024) for m, w in MAP_MEMORY_SIZE.items()) + ".")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
