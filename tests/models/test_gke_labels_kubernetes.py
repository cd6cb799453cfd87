"""GKE cost allocation labels on billing rows (hand-worked).

With GKE cost allocation on, the export splits a node VM's rows by the pods that ran on it and
labels each part: `goog-k8s-cluster-name`, `k8s-namespace`, and `k8s-label/<key>` for each pod
label; the part no pod requested is labelled `k8s-namespace: kube:unallocated`.
"""

from decimal import Decimal as D

from tests.models.rows import gpu, host, line_item, run

GKE = {"goog-k8s-cluster-name": "ml-cluster"}


def test_gke_labels_kubernetes_name_the_run_and_the_team(books):
    # Node gke-ml-a3-1 (8 H100s), hour 00. GKE split its GPU row: 60 USD for the pods of run
    # run-k (k8s-label/run_id), labelled namespace vision; the remaining 20 GPU USD and the host
    # row (8 USD) are kube:unallocated. A bucket row (no resource) of 5 USD carries
    # k8s-label/team=llm.
    # Direct: run-k gets its 60 wholly (a known run). The pool keeps 20 + 8 = 28 for the node's
    # hour; run-k also held 4 of the 8 GPUs for the hour (placement), paid GPU-seconds
    # 28,800 on the unallocated part: run-k's share of the pool = 28 x 14,400 / 28,800 = 14.
    # run-k = 60 + 14 = 74; idle = 28 - 14 = 14; billed 60 + 20 + 8 + 5 = 93.
    node = "gke-ml-a3-1"
    split = {**GKE, "k8s-namespace": "vision", "k8s-label/run_id": "run-k"}
    idle = {**GKE, "k8s-namespace": "kube:unallocated"}
    billing = [
        gpu("2026-10-01 00", 60, resource=node, seconds=0, labels=split),
        gpu("2026-10-01 00", 20, resource=node, labels=idle),
        host("2026-10-01 00", 8, resource=node, labels=idle),
        line_item(
            sku="Standard Storage US Multi-region",
            cost=5,
            resource=None,
            service="Cloud Storage",
            labels={"k8s-label/team": "llm"},
        ),  # fmt: skip
    ]
    b = books.build(billing, [run("run-k", gpus=4, resource=node)])
    assert b.one("SELECT direct_nanos FROM run_direct_costs WHERE run_id = 'run-k'") == 60 * 10**9
    assert b.run_cost("run-k") == D("74")
    assert b.idle(node, "2026-10-01 00:00:00")["unallocated_idle_cost"] == D("14")
    teams = dict(
        (r["team"], r["cost"])
        for r in b.rows("SELECT team, sum(effective_cost) AS cost FROM spend_daily GROUP BY team")
    )
    # vision: 60 (k8s-namespace); kube:unallocated is no team: 20 + 8 = 28; llm: 5.
    assert teams == {"vision": D("60"), "__unallocated__": D("28"), "llm": D("5")}
    assert all(r["difference"] == 0 for r in b.rows("SELECT difference FROM books"))


def test_gke_labels_kubernetes_a_team_label_beats_the_namespace(books):
    labels = {**GKE, "k8s-namespace": "research", "k8s-label/team": "vision"}
    b = books.build([host("2026-10-01 00", 3, labels=labels)], [])
    assert b.rows("SELECT team FROM spend_daily") == [{"team": "vision"}]
