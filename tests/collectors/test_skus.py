"""What a billing SKU is, by collectors/sku_rules.csv: real SKU strings, worked by hand.

The strings are the export's `sku.description`s: tests/fixtures/gcp_sku_descriptions/ (commitment
fees), the simulator's price table (simulator/prices.py names where each was seen) and the
shared notes on GCP SKU descriptions; the network wordings are egress_daily's (tests/models/
test_egress.py).
"""

from pathlib import Path

import pytest

from flopledger.collectors import skus
from flopledger.collectors.skus import SkuInfo, classify_sku, read_rules

FIXTURES = Path(__file__).parents[1] / "fixtures" / "gcp_sku_descriptions"
FEE_1Y, FEE_3Y = (FIXTURES / "commitment_fee_skus.txt").read_text().splitlines()
CE, GCS = "Compute Engine", "Cloud Storage"


@pytest.mark.parametrize(
    ("description", "accelerator", "model"),
    [
        # H100 (A3 High) and its commitment / spot variants.
        ("Nvidia H100 80GB GPU running in Americas", "H100-80GB", "on_demand"),
        ("Commitment v1: Nvidia H100 80GB GPU in Americas for 1 Year", "H100-80GB", "commitment"),
        ("Spot Preemptible Nvidia H100 80GB GPU running in Americas", "H100-80GB", "spot"),
        # H100 Mega: both spellings and the "Plus" name.
        ("Nvidia H100 80GB Mega GPU running in Belgium", "H100-MEGA-80GB", "on_demand"),
        (
            "Nvidia H100 Mega 80GB GPU attached to DWS Defined Duration VMs running in Americas",
            "H100-MEGA-80GB",
            "dws",
        ),
        ("Nvidia H100 80GB Plus GPU running in Americas", "H100-MEGA-80GB", "on_demand"),
        # H200 has no "Nvidia" prefix.
        ("H200 141GB GPU running in Americas", "H200-141GB", "on_demand"),
        ("Reserved H200 141GB GPU running in Netherlands", "H200-141GB", "reserved"),
        # B200 (A4) is sold per "1 gpu slice".
        ("A4 Nvidia B200 (1 gpu slice) running in Americas", "B200-180GB", "on_demand"),
        ("Spot Preemptible A4 Nvidia B200 (1 gpu slice) running in Americas", "B200-180GB", "spot"),
        (FEE_3Y, "B200-180GB", "commitment"),
        # A100 40 GB vs 80 GB.
        ("Nvidia Tesla A100 GPU running in Americas", "A100-40GB", "on_demand"),
        ("Nvidia A100 80GB GPU running in Americas", "A100-80GB", "on_demand"),
        ("Preemptible Nvidia Tesla A100 GPU running in Americas", "A100-40GB", "spot"),
        ("Nvidia L4 GPU running in Americas", "L4-24GB", "on_demand"),
        # TPUs under Compute Engine (v5e, v5p, v6e) and the legacy Cloud TPU service (v4).
        ("TpuV5e chip running in Americas", "TPU-v5e", "on_demand"),
        ("TpuV5p chip running in Americas", "TPU-v5p", "on_demand"),
        ("Preemptible TpuV6e chip running in Americas", "TPU-v6e", "spot"),
        ("Tpu-v4 Pod running in Americas", "TPU-v4", "on_demand"),
        # Not accelerators: the VM's cores and RAM around the GPUs, storage.
        ("A3 Instance Core running in Americas", None, "on_demand"),
        ("N1 Predefined Instance Ram running in Americas", None, "on_demand"),
        ("Standard Storage US Multi-region", None, "on_demand"),
    ],
)
def test_sku_families(description, accelerator, model):
    info = classify_sku(description, CE)
    assert info.accelerator_type == accelerator
    assert info.pricing_model == model


def _info(kind, accelerator=None, model="on_demand", fee=False, term=None, traffic=None,
          egress=None):  # fmt: skip
    return SkuInfo(accelerator, model, kind, fee, term, traffic, egress)


@pytest.mark.parametrize(
    ("service", "description", "expected"),
    [
        # Accelerators: the accelerator table names the type; a commitment's fee is still the
        # accelerator it commits (billing_hourly's resource kind), with the term from its end.
        (CE, "Nvidia H100 80GB GPU running in Americas", _info("accelerator", "H100-80GB")),
        (CE, "TpuV6e chip running in Americas", _info("accelerator", "TPU-v6e")),
        (CE, FEE_1Y, _info("accelerator", "B200-180GB", "commitment", True, "1 Year")),
        (CE, FEE_3Y, _info("accelerator", "B200-180GB", "commitment", True, "3 Years")),
        # A resource-based CPU commitment: cores (the word Cpu), a fee of 1 Year.
        (CE, "Commitment v1: Cpu in Americas for 1 Year", _info("cores", None, "commitment",
                                                                 True, "1 Year")),
        # The VM around the GPUs: cores and RAM (word boundaries), PD and snapshots are storage.
        (CE, "A3 Instance Core running in Americas", _info("cores")),
        (CE, "A3 Ultra Instance Ram running in Americas", _info("memory")),
        (CE, "Balanced PD Capacity", _info("storage")),
        (CE, "SSD backed PD Capacity", _info("storage")),
        (CE, "SSD backed Local Storage", _info("storage")),
        (CE, "Storage PD Snapshot in US", _info("storage")),
        # Cloud Storage's stored bytes are storage by their service, its downloads egress.
        (GCS, "Standard Storage US Multi-region", _info("storage")),
        (GCS, "Download Worldwide Destinations (excluding Asia & Australia)",
         _info("network", traffic="download", egress=True)),
        # A "Download" SKU of another service is not Cloud Storage's egress: the rule names
        # its service (nothing else matches: other).
        (CE, "Download Worldwide Destinations (excluding Asia & Australia)", _info("other")),
        # Network: today's and the pre-2024 wording, inter-zone, and free intra-zone traffic
        # (network, not egress).
        (CE, "Network Internet Data Transfer Out from Americas to Americas",
         _info("network", traffic="internet", egress=True)),
        (CE, "Network Internet Egress from Americas to Americas",
         _info("network", traffic="internet", egress=True)),
        (CE, "Network Inter Region Data Transfer Out from Americas to EMEA",
         _info("network", traffic="inter_region", egress=True)),
        (CE, "Network Inter Zone Data Transfer Out",
         _info("network", traffic="inter_zone", egress=True)),
        (CE, "Network Intra Zone Data Transfer", _info("network", traffic="intra_zone",
                                                        egress=False)),
        # Neither network by its words nor a VM part: other, as spend_daily had it.
        (CE, "External IP Charge on a Standard VM", _info("other")),
        (CE, "Tax", _info("other")),
        # No description at all: what its service says (Cloud Storage: storage), else other.
        (GCS, None, _info("storage")),
        (None, None, _info("other")),
    ],
)  # fmt: skip
def test_what_each_real_sku_is(service, description, expected):
    assert classify_sku(description, service) == expected


def test_gpu_words_without_a_known_accelerator_are_not_an_accelerator():
    # The accelerator rule counts only where the accelerator table names the type: a K80 is
    # not in it, so the SKU is other (as spend_daily had it), with no accelerator type.
    assert classify_sku("Nvidia Tesla K80 GPU running in Americas", CE) == _info("other")


def test_compute_is_the_cores_and_memory_words_and_instance():
    # One rule for billing_hourly's cores / memory and spend_daily's compute. spend_daily
    # matched the substrings core and ram, billing_hourly the words core, cpu, vcpu, ram,
    # memory: a vCPU SKU was cores in billing_hourly but not compute in spend_daily; now it is
    # both. "Memory-optimized ... Core" is cores (tried before memory), as billing_hourly had it.
    assert classify_sku("Cloud SQL for PostgreSQL: Zonal - vCPU in Americas", "Cloud SQL")[2] == (
        "cores"
    )
    assert classify_sku("M3 Memory-optimized Instance Core running in Americas", CE)[2] == "cores"
    assert classify_sku("E2 Instance Core running in Americas", CE)[2] == "cores"
    assert classify_sku("Sole Tenancy Instance Premium running in Americas", CE)[2] == "compute"


def _rules(tmp_path, *rows):
    path = tmp_path / "rules.csv"
    path.write_text(
        "# a comment\nanswer,value,service,pattern,traffic,is_egress\n" + "\n".join(rows) + "\n"
    )
    return path


DEFAULTS = ("pricing_model,on_demand,,,,", "commitment_fee,false,,,,", "sku_kind,other,,,,")


def test_the_rules_file_is_read_in_order_and_checked(tmp_path):
    rules = read_rules(_rules(tmp_path, "sku_kind,storage,,(?i)disk,,", *DEFAULTS))
    assert [r.value for r in rules["sku_kind"]] == ["storage", "other"]
    # Line 3 is the first rule (the comment and the header before it).
    with pytest.raises(ValueError, match="rules.csv line 3: unknown answer 'colour'"):
        read_rules(_rules(tmp_path, "colour,red,,,,", *DEFAULTS))
    with pytest.raises(ValueError, match="line 3: unknown sku_kind 'gpu'"):
        read_rules(_rules(tmp_path, "sku_kind,gpu,,GPU,,", *DEFAULTS))
    with pytest.raises(ValueError, match="line 4: missing \\)"):
        read_rules(_rules(tmp_path, DEFAULTS[0], "sku_kind,cores,,(core,,", *DEFAULTS[1:]))
    with pytest.raises(ValueError, match="sku_kind has no last rule matching every SKU"):
        read_rules(_rules(tmp_path, *DEFAULTS[:2], "sku_kind,other,,x,,"))


def test_the_shipped_rules_are_the_ones_classify_reads():
    assert read_rules(skus.RULES_FILE) == skus.RULES
    assert skus.RULES_FILE.parent.name == "collectors"
