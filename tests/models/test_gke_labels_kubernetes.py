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
