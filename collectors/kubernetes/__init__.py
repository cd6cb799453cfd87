"""Kubernetes pods as runs (GKE and any cluster).

- `client`: the door to the official `kubernetes` client (kubeconfig or in-cluster
  credentials): list pods, watch pods.
- `pods`: one Pod object (the API's JSON shape) to one pod lifecycle record.
- `watch`: the watcher behind `flopledger kube-watch`: list, then watch, writing lifecycle
  records to files crash-safely (dot-file, fsync, rename); a 410 Gone re-lists.
- `runs`: lifecycle records to run records (the jobs file's shape) by configurable label keys;
  MIG slices become shares of a GPU (accelerators/mig.py).
- `read`: the watcher's files and saved `kubectl get pods -A -o json` output into `jobs` and
  `job_placements` rows, and quarantine rows.
"""
