#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: run the flopledger agent for 60 s against the real
# NVML and print the rows it spooled. Usage: scripts/gpu_check.sh [SECONDS] (default 60).
#
# A row is written when its minute finishes, so the run is stretched to end just after
# a minute boundary: at least one finished (possibly partial) minute per GPU comes out.
set -euo pipefail

cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
SECONDS_TO_RUN="${1:-60}"

command -v nvidia-smi >/dev/null || { echo "gpu_check: nvidia-smi not found: no NVIDIA driver here" >&2; exit 2; }
nvidia-smi --query-gpu=index,name,driver_version,power.draw,utilization.gpu --format=csv

SPOOL="$(mktemp -d -t flopledger-gpu-check.XXXXXX)"
trap 'rm -rf "$SPOOL"' EXIT

# Stretch to the next minute boundary + 2 s so the last full or partial minute is flushed.
NOW=$(date +%s)
END=$(( NOW + SECONDS_TO_RUN ))
END=$(( (END / 60 + 1) * 60 + 2 ))
RUN_S=$(( END - NOW ))
echo "gpu_check: running the agent for ${RUN_S}s (>= ${SECONDS_TO_RUN}s, ending after a minute boundary)"

HEALTH_PORT="${HEALTH_PORT:-19464}"
"$PY" -m flopledger.cli.main -v agent --spool "$SPOOL" --interval 1s --duration "${RUN_S}s" \
    --health "127.0.0.1:${HEALTH_PORT}" &
AGENT=$!
# The agent's own health, scraped mid-run (docs/nvml-agent.md, "Health").
sleep 10
"$PY" - "$HEALTH_PORT" <<'PYEOF'
import http.client
import sys

for path in ("/healthz", "/metrics"):
    conn = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=5)
    conn.request("GET", path)
    reply = conn.getresponse()
    body = reply.read().decode()
    lines = [l for l in body.splitlines() if l.startswith("flopledger_agent_")] or [body.strip()]
    print(f"gpu_check: {path} -> {reply.status}: " + "; ".join(lines))
    if reply.status != 200:
        sys.exit(f"gpu_check: FAILED ({path} answered {reply.status})")
PYEOF
wait "$AGENT"

"$PY" - "$SPOOL" <<'PYEOF'
import sys

import polars as pl

from flopledger.collectors.nvml.read import read_spool

table, quarantined = read_spool([sys.argv[1]])
rows = pl.from_arrow(table)
pl.Config.set_tbl_cols(-1)
pl.Config.set_tbl_rows(-1)
pl.Config.set_tbl_width_chars(200)
key = ["minute", "gpu_index", "util_gpu_pct", "power_w", "energy_j", "sm_clock_mhz",
       "tensor_active_pct", "sm_active_pct", "xid_errors", "samples", "status"]
print(rows.select(key))
print(rows.write_csv(), end="")  # every column
for q in quarantined:
    print("QUARANTINED:", q.file, q.line, q.reason)
if rows.height == 0 or quarantined:
    sys.exit("gpu_check: FAILED (no rows, or unreadable rows)")
print(f"gpu_check: OK, {rows.height} row(s), statuses {sorted(set(rows['status']))}")
PYEOF
