"""On-node achieved-FLOPs probes: calibrated, verified matmul sweeps on whatever JAX sees.

`import jax` happens only under this package, and only in `probes.kernels` and
`probes.sweep`; `probes.specs`, `probes.results` and the CLI parser import no JAX, so the
pipeline can use the spec table and the schema without it.
Run on its own (only jax and numpy needed): `python -m flopledger.probes --quick`.
"""

PROBE_VERSION = "1"
