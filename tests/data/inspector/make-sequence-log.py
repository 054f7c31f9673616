#!/usr/bin/env python3
"""Writes synthetic-sequence-2node-8gpu.log (README.md says what it holds): a verbose NCCL Inspector log of a known
per-step collective sequence, 8 ranks on 2 nodes, 3 steps. Deterministic; run it from this folder to regenerate.

    python3 make-sequence-log.py > synthetic-sequence-2node-8gpu.log
"""
import json

T0 = 1765000000000000  # microseconds
STEPS = 3
MIB = 1 << 20

# Communicators: id, name, global ranks.
WORLD = ("0x5eed0000000100", "World", list(range(8)))
TP = [("0x5eed00000002%02x" % g, "TP Group %d" % g, list(range(4 * g, 4 * g + 4))) for g in range(2)]
DP = [("0x5eed00000003%02x" % g, "DP Group %d" % g, [g, g + 4]) for g in range(4)]

# One rank's step: (gap before it in us, kind of communicator, NCCL call, coll_msg_size_bytes, kernel time in us).
STEP = [
    (1000, "tp", "AllReduce", 8 * MIB, 120),
    (500, "tp", "AllReduce", 8 * MIB, 120),
    (2000, "dp", "ReduceScatter", 32 * MIB, 700),  # one rank's share: the whole buffer is 64 MiB
    (300, "dp", "AllGather", 32 * MIB, 650),
    (200, "world", "AllReduce", 8192, 30),
]
SLOW = (1, 2, 2, 600)  # rank 1, step 3 (index 2), call 3 (index 2): starts 600 us late (the median leaves it out)


def comm_of(kind, rank):
    if kind == "world":
        return WORLD
    if kind == "tp":
        return TP[rank // 4]
    return DP[rank % 4]


def main():
    records = []
    sn = {}
    for rank in range(8):
        t = T0
        for step in range(STEPS):
            for index, (gap, kind, coll, size, kernel_us) in enumerate(STEP):
                t += gap
                if (rank, step, index) == SLOW[:3]:
                    t += SLOW[3]
                comm_id, name, members = comm_of(kind, rank)
                key = (comm_id, rank)
                sn[key] = sn.get(key, -1) + 1
                n = len(members)
                whole = size * n if coll in ("AllGather", "ReduceScatter") else size
                algbw = whole / (kernel_us * 1e-6) / 1e9
                factor = 2 * (n - 1) / n if coll == "AllReduce" else (n - 1) / n
                record = {
                    "header": {"id": comm_id, "comm_name": name, "rank": members.index(rank), "n_ranks": n,
                               "nnodes": len({m // 4 for m in members})},
                    "metadata": {"inspector_output_format_version": "v4.0", "git_rev": "",
                                 "rec_mechanism": "nccl_profiler_interface", "dump_timestamp_us": t + kernel_us + 10,
                                 "hostname": "node-%02d" % (rank // 4), "pid": 5000 + rank},
                    "coll_perf": {"coll": coll, "coll_sn": sn[key], "coll_msg_size_bytes": size,
                                  "coll_exec_time_us": kernel_us, "coll_timing_source": "kernel_gpu",
                                  "coll_algobw_gbs": round(algbw, 6), "coll_busbw_gbs": round(algbw * factor, 6),
                                  "event_trace_sn": {"coll_start_sn": 1, "coll_stop_sn": 2, "kernel_events": [
                                      {"channel_id": 0, "kernel_start_sn": 3, "kernel_stop_sn": 4,
                                       "kernel_record_sn": 5}]},
                                  "event_trace_ts": {"coll_start_ts": t - 20, "coll_stop_ts": t - 15, "kernel_events": [
                                      {"channel_id": 0, "kernel_start_ts": t, "kernel_stop_ts": t + kernel_us,
                                       "kernel_record_ts": t + kernel_us}]}},
                }
                records.append((t, rank, json.dumps(record, separators=(",", ":"))))
                t += kernel_us
    for _, _, line in sorted(records):
        print(line)


main()
