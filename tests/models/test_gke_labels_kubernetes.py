"""GKE cost allocation labels on billing rows (hand-worked).

With GKE cost allocation on, the export splits a node VM's rows by the pods that ran on it and
labels each part: `goog-k8s-cluster-name`, `k8s-namespace`, and `k8s-label/<key>` for each pod
label; the part no pod requested is labelled `k8s-namespace: kube:unallocated`.
"""

from decimal import Decimal as D

from tests.models.rows import gpu, host, line_item, run

GKE = {"goog-k8s-cluster-name": "ml-cluster"}


def test_gke_labels_kubernetes_name_the_run_and_the_team(books):
    # Node gke-ml-a3-1 (8 H100s), hour 00: GPU 80 USD for 28,800 GPU-seconds, host 8 USD.
    # GKE split the GPU row by the pods' requests: run-k's pods asked for 4 GPUs, so 40 USD
    # and 14,400 GPU-seconds are labelled k8s-label/run_id=run-k (namespace vision); the other
    # 40 USD / 14,400 s and the host row are kube:unallocated. A bucket row (no resource) of
    # 5 USD carries k8s-label/team=llm. run-k is known (jobs) but has no placements loaded.
    # Direct: run-k gets its 40 wholly. The node's pool keeps 40 + 8 = 48, which no placement
    # holds: all of it is unallocated idle. Billed 40 + 40 + 8 + 5 = 93 = 40 + 48 + 5 (shared).
    node = "gke-ml-a3-1"
    split = {**GKE, "k8s-namespace": "vision", "k8s-label/run_id": "run-k"}
    idle = {**GKE, "k8s-namespace": "kube:unallocated"}
    billing = [
        gpu("2026-10-01 00", 40, resource=node, seconds=14400, labels=split),
        gpu("2026-10-01 00", 40, resource=node, seconds=14400, labels=idle),
        host("2026-10-01 00", 8, resource=node, labels=idle),
        line_item(
            sku="Standard Storage US Multi-region",
            cost=5,
            resource=None,
            service="Cloud Storage",
            labels={"k8s-label/team": "llm"},
        ),
    ]
    b = books.build(billing, [run("run-k", gpus=4, resource=node, placements=[])])
    assert b.one("SELECT direct_nanos FROM run_direct_costs WHERE run_id = 'run-k'") == 40 * 10**9
    assert b.run_cost("run-k") == D("40")
    assert b.idle(node, "2026-10-01 00:00:00")["unallocated_idle_cost"] == D("48")
    teams = dict(
        (r["team"], r["cost"])
        for r in b.rows("SELECT team, sum(effective_cost) AS cost FROM spend_daily GROUP BY team")
    )
    # vision: 40 (k8s-namespace); kube:unallocated is no team: 40 + 8 = 48; llm: 5.
    assert teams == {"vision": D("40"), "__unallocated__": D("48"), "llm": D("5")}
    assert all(r["difference"] == 0 for r in b.rows("SELECT difference FROM books"))


def test_gke_labels_kubernetes_a_team_label_beats_the_namespace(books):
    labels = {**GKE, "k8s-namespace": "research", "k8s-label/team": "vision"}
    b = books.build([host("2026-10-01 00", 3, labels=labels)], [])
    assert b.rows("SELECT team FROM spend_daily") == [{"team": "vision"}]


def test_gke_labels_kubernetes_split_rows_and_placements_leave_the_rest_idle(books):
    # The same node-hour as above, now with run-k's pods loaded too: a placement of 4 GPUs
    # for the hour (H = 14,400 GPU-seconds). Its split row already paid those 14,400 s, so its
    # claim on the node's pool is 14,400 - 14,400 = 0: the pool (unallocated GPU 40 + host 8
    # = 48, P = 14,400 s) stays idle, and run-k costs its split: 40.
    # Two hours later, a second placement (hour 02, 2 GPUs = 7,200 s) with no split row there:
    # its claim is all of it: 7,200 / 28,800 of that hour's 88 = 22.
    # run-k = 40 + 22 = 62; idle: hour 00: 48, hour 02: 88 - 22 = 66.
    node = "gke-ml-a3-1"
    split = {**GKE, "k8s-namespace": "vision", "k8s-label/run_id": "run-k"}
    idle = {**GKE, "k8s-namespace": "kube:unallocated"}
    billing = [
        gpu("2026-10-01 00", 40, resource=node, seconds=14400, labels=split),
        gpu("2026-10-01 00", 40, resource=node, seconds=14400, labels=idle),
        host("2026-10-01 00", 8, resource=node, labels=idle),
        gpu("2026-10-01 02", 80, resource=node, labels=idle),
        host("2026-10-01 02", 8, resource=node, labels=idle),
    ]
    placements = [
        {"resource_name": node, "accelerators": 4,
         "start": "2026-10-01T00:00:00Z", "end": "2026-10-01T01:00:00Z"},
        {"resource_name": node, "accelerators": 2,
         "start": "2026-10-01T02:00:00Z", "end": "2026-10-01T03:00:00Z"},
    ]  # fmt: skip
    runs = [run("run-k", "2026-10-01T00:00:00Z", "2026-10-01T03:00:00Z", gpus=4, resource=node,
                placements=placements)]  # fmt: skip
    b = books.build(billing, runs)
    assert b.run_cost("run-k") == D("62")
    assert b.idle(node, "2026-10-01 00:00:00")["unallocated_idle_cost"] == D("48")
    assert b.idle(node, "2026-10-01 02:00:00")["unallocated_idle_cost"] == D("66")
    # What it held is still what it held: 4 GPU-hours + 2 GPU-hours.
    assert b.one("SELECT accelerator_hours FROM cost_per_run WHERE run_id = 'run-k'") == 6.0
    assert all(r["difference"] == 0 for r in b.rows("SELECT difference FROM books"))
