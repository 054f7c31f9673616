#!/usr/bin/env python3
"""Writes pytorch-shaped.0.et: rank 0 of a 4-rank DDP job as Chakra's PyTorch converter lays its output out.

Run from a checkout of mlcommons/chakra whose schema was compiled for Python (see README.md):

    PYTHONPATH=/path/above/chakra python3 make_pytorch_shaped.py pytorch-shaped.0.et

What it holds, as the converter (src/converter/pytorch_converter.py) writes it:
  - a METADATA_NODE "## process_group:init ##" whose inputs.values is Python's str() of the one-element list
    PyTorch records, the process groups as JSON ("0": every rank; "1": ranks 0 and 1, unused here);
  - per iteration a CPU op "ProfilerStep#<n>", CPU ops (aten::linear, autograd::engine::evaluate_function: ...,
    Optimizer.step#SGD.step with duration 0 as the converter zeroes it) with is_cpu_op true, each GPU kernel a
    COMP_NODE child (ctrl_deps on its CPU op) with is_cpu_op false, and the NCCL kernels as COMM_COLL_NODEs with
    comm_type, comm_size and pg_name;
  - the attributes rf_id, seq_id, tid as the converter writes them, but as int32 (other writers use int32 and
    uint32), and comm_type / comm_size as int32 too;
  - two iterations, the second's ProfilerStep#2 after the first's optimizer kernel;
  - the nodes in a shuffled order (seeded), as a file indexed by id may hold them.

Kernel times, microseconds, per iteration: forward 100, 200; backward 400, 300; optimizer 50. Bucket 0
(4,000,000 bytes) after the first backward kernel, bucket 1 (2,000,000 bytes) after the second and bucket 0.
"""
import json
import random
import sys

from chakra.schema.protobuf.et_def_pb2 import (
    ALL_REDUCE,
    COMM_COLL_NODE,
    COMP_NODE,
    METADATA_NODE,
    AttributeProto as ChakraAttr,
    GlobalMetadata,
    Node,
)
from chakra.src.third_party.utils.protolib import encodeMessage as encode_message


class Writer:
    def __init__(self):
        self.nodes = []

    def add(self, name, kind, micros=0, cpu=False, data=(), ctrl=(), attrs=()):
        node = Node()
        node.id = len(self.nodes) + 1
        node.name = name
        node.type = kind
        node.duration_micros = micros
        node.data_deps.extend(data)
        node.ctrl_deps.extend(ctrl)
        node.attr.extend(
            [
                ChakraAttr(name="rf_id", int32_val=node.id),
                ChakraAttr(name="seq_id", int32_val=-1),
                ChakraAttr(name="tid", uint32_val=1),
                ChakraAttr(name="is_cpu_op", bool_val=cpu),
                *attrs,
            ]
        )
        self.nodes.append(node)
        return node.id


def main(output):
    w = Writer()
    groups = [
        {"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 4, "ranks": [0, 1, 2, 3]},
        {"pg_name": "1", "pg_desc": "undefined", "backend_config": "cuda:nccl", "pg_size": 2, "ranks": [0, 1]},
    ]
    meta = w.add("## process_group:init ##", METADATA_NODE, cpu=True)
    w.nodes[meta - 1].inputs.values = str([json.dumps(groups)])
    last = None
    for step in (1, 2):
        marker = w.add(f"ProfilerStep#{step}", COMP_NODE, cpu=True, data=[last] if last else [])
        cpu = marker
        kernel = marker
        kernels = []
        for op, gpu, micros in [
            ("aten::linear", "ampere_sgemm_128x64_tn", 100),
            ("aten::linear", "ampere_sgemm_64x64_tn", 200),
            ("autograd::engine::evaluate_function: AddmmBackward0", "ampere_sgemm_128x64_nt", 400),
            ("autograd::engine::evaluate_function: AddmmBackward0", "ampere_sgemm_64x64_nt", 300),
        ]:
            cpu = w.add(op, COMP_NODE, micros=30, cpu=True, data=[cpu])
            kernel = w.add(gpu, COMP_NODE, micros=micros, data=[kernel], ctrl=[cpu])
            kernels.append(kernel)
        buckets = []
        for size, after in [(4_000_000, kernels[2]), (2_000_000, kernels[3])]:
            record = w.add("record_param_comms", COMP_NODE, micros=5, cpu=True, data=[cpu])
            nccl = w.add(
                "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                COMM_COLL_NODE,
                data=[after] + buckets[-1:],
                ctrl=[record],
                attrs=[
                    ChakraAttr(name="comm_type", int32_val=ALL_REDUCE),
                    ChakraAttr(name="comm_size", int32_val=size),
                    ChakraAttr(name="pg_name", string_val="0"),
                ],
            )
            buckets.append(nccl)
        opt = w.add("Optimizer.step#SGD.step", COMP_NODE, micros=0, cpu=True, data=[cpu])
        last = w.add("multi_tensor_apply_kernel", COMP_NODE, micros=50, data=buckets + [kernels[3]], ctrl=[opt])
    nodes = list(w.nodes)
    random.Random(43).shuffle(nodes)
    with open(output, "wb") as f:
        encode_message(
            f,
            GlobalMetadata(
                version="0.0.4",
                attr=[ChakraAttr(name="schema", string_val="1.0.2-chakra.0.0.4"), ChakraAttr(name="pid", uint64_val=7)],
            ),
        )
        for node in nodes:
            encode_message(f, node)


if __name__ == "__main__":
    main(sys.argv[1])
