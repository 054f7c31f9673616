"""syncsim from Python: a run, a collective, an error, a sweep (docs/python.md shows what it prints).

    PYTHONPATH=build/python python3 examples/python/quickstart.py     # from the repository's root
"""
import syncsim

SCENARIO = "examples/resnet50-dgx-8gpu.yaml"

# One run: report.json as a dict, with overrides as `--set` takes them.
r = syncsim.run(SCENARIO, overrides={"training.iterations": 5})
print(f"{r['scenario']}: {r['workers']} GPUs, {r['samples_per_s']:.1f} samples/s, "
      f"iteration {r['iteration_time_us']['mean'] / 1e3:.3f} ms")

# One collective: `syncsim collective --json`'s rows, nccl-tests' columns.
for row in syncsim.collective("dgx:nodes=2,gpus=8", sizes="1M:1G:32")["rows"]:
    print(f"{row['size_bytes']:>12} B {row['time_us']:>10.1f} us  busbw {row['busbw_gbps']:6.2f} GB/s  "
          f"{row['algorithm']}/{row['protocol']} x{row['channels']}")

# Bad input raises syncsim.InputError (a ValueError) with the command line's message.
try:
    syncsim.run(SCENARIO, overrides={"training.iteratons": 5})
except syncsim.InputError as error:
    print(f"InputError: {error}")

# A sweep: one row per point (a pandas DataFrame when pandas is installed, else a list of dicts).
rows = syncsim.sweep(SCENARIO, [{"cluster.topology.nodes": n, "training.iterations": 5} for n in (1, 2, 4)],
                     progress=False)
for row in (rows.to_dict("records") if hasattr(rows, "to_dict") else rows):
    print(f"{row['workers']:>3} GPUs  {row['samples_per_s']:8.1f} samples/s  "
          f"efficiency {100 * row['scaling_efficiency']:.1f}%")
