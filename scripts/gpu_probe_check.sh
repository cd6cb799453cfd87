#!/usr/bin/env bash
# Full bf16 probe sweep on an NVIDIA GPU node: best achieved TFLOP/s against the spec sheet.
#
# Runs `probes/` on its own with the machine's Python and its CUDA build of JAX (only jax and
# numpy needed; not the project's virtualenv). From the repository root:
#
#     scripts/gpu_probe_check.sh                 # device 0, results in ${OUT:-/tmp}/probe_gpu.jsonl
#     PYTHON=python3.12 DEVICE=3 scripts/gpu_probe_check.sh
#
# Budget: the sweep (8 squares up to 16384^3 and 6 Llama-shaped GEMMs, 1 s timed per shape) takes
# about a minute on an H100/H200; the whole script is capped at 290 s. Exit 0 when every shape
# verified, 1 when one failed verification or errored, 2 when no GPU is visible to JAX.
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
DEVICE="${DEVICE:-0}"
RESULTS="${OUT:-/tmp}/probe_gpu.jsonl"
STRETCH_TFLOPS="${STRETCH_TFLOPS:-790}"  # about the best bf16 matmul measured on an H200

nvidia-smi --query-gpu=index,name,driver_version,power.limit,clocks.max.sm --format=csv || true
"$PYTHON" - <<'PY' || exit 2
import jax
print(f"jax {jax.__version__}, backend {jax.default_backend()}, devices {jax.local_devices()}")
if jax.default_backend() != "gpu":
    raise SystemExit("JAX sees no GPU: install a CUDA build of jax (pip install 'jax[cuda12]')")
PY

rm -f "$RESULTS"
status=0
timeout 290 "$PYTHON" -m flopledger.probes --full --dtype bf16 --device "$DEVICE" --out "$RESULTS" || status=$?

[ -s "$RESULTS" ] || { echo "no results written to $RESULTS"; exit 1; }
"$PYTHON" - "$RESULTS" "$STRETCH_TFLOPS" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
ok = [r for r in rows if r["verified"]]
print(f"{len(ok)}/{len(rows)} shapes verified")
if ok:
    best = max(ok, key=lambda r: r["achieved_tflops"])
    spec = best["peak_tflops_spec"]
    vs_spec = f"{100 * best['achieved_tflops'] / spec:.1f}% of spec {spec:.1f}" if spec else "no spec for this GPU"
    print(f"best bf16: {best['achieved_tflops']:.1f} TFLOP/s at {best['m']}x{best['n']}x{best['k']} "
          f"on {best['device_kind']} ({vs_spec}); stretch goal {sys.argv[2]} TFLOP/s: "
          f"{'met' if best['achieved_tflops'] >= float(sys.argv[2]) else 'not met'}")
    if best.get("tflops_per_w"):
        print(f"energy: {best['tflops_per_w']:.2f} TFLOP/s per W over the timed window")
PY
exit "$status"
