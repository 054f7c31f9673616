"""A scaling curve from Python: ResNet-50 on 1 to 16 DGX nodes, throughput against GPUs beside ideal scaling.

    PYTHONPATH=build/python python3 examples/python/plan.py [OUTPUT.png]      # from the repository's root

Prints one line per size and writes the chart (default syncsim-out/plan.png). Matplotlib draws it with whatever
backend it is given: MPLBACKEND=Agg for none (the tests run it so).
"""
import os
import sys

import matplotlib.pyplot as plt

import syncsim

SCENARIO = "examples/resnet50-dgx-8gpu.yaml"
NODES = (1, 2, 4, 8, 16)

output = sys.argv[1] if len(sys.argv) > 1 else os.path.join("syncsim-out", "plan.png")
rows = syncsim.sweep(SCENARIO, [{"cluster.topology.nodes": n, "training.iterations": 5} for n in NODES],
                     progress=False)
rows = rows.to_dict("records") if hasattr(rows, "to_dict") else rows

gpus = [row["workers"] for row in rows]
throughput = [row["samples_per_s"] for row in rows]
one_gpu = rows[0]["single_gpu_samples_per_s"]
for row in rows:
    print(f"{row['workers']:>4} GPUs  {row['samples_per_s']:9.1f} samples/s  "
          f"efficiency {100 * row['scaling_efficiency']:5.1f}%  iteration {row['iteration_mean_us'] / 1e3:.3f} ms")

figure, axes = plt.subplots(figsize=(7, 4.5))
axes.plot(gpus, [one_gpu * g for g in gpus], "--", color="grey", label="ideal (GPUs x one GPU)")
axes.plot(gpus, throughput, "o-", label=f"{rows[0]['model']} on {rows[0]['gpu']}")
for g, t in zip(gpus, throughput):
    axes.annotate(str(g), (g, t), textcoords="offset points", xytext=(4, -12))
axes.set_xlabel("GPUs")
axes.set_ylabel("samples/s")
axes.set_title("Throughput against cluster size (syncsim)")
axes.legend()
os.makedirs(os.path.dirname(output) or ".", exist_ok=True)
figure.savefig(output, dpi=100)
print(f"wrote {output}")
