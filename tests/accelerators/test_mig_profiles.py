"""The MIG profile table: shares as NVIDIA's MIG user guide gives the fraction of SMs."""

from fractions import Fraction

from flopledger.accelerators import CANONICAL_NAMES
from flopledger.accelerators.mig import MIG_PROFILES, mig_profile, mig_share


def test_mig_profiles_of_h100_are_sevenths_of_the_gpu():
    shares = {p.profile: p.share for p in MIG_PROFILES if p.accelerator_type == "H100-80GB"}
    assert shares == {
        "1g.10gb": Fraction(1, 7),
        "1g.10gb+me": Fraction(1, 7),
        "1g.20gb": Fraction(1, 7),
        "2g.20gb": Fraction(2, 7),
        "3g.40gb": Fraction(3, 7),
        "4g.40gb": Fraction(4, 7),
        "7g.80gb": Fraction(1),
    }


def test_mig_profiles_name_known_accelerators_and_their_memory():
    assert {p.accelerator_type for p in MIG_PROFILES} <= set(CANONICAL_NAMES)
    assert mig_profile("A100-40GB", "1g.5gb").memory_gb == 5
    assert mig_profile("H200-141GB", "mig-1g.18gb").share == Fraction(1, 7)
    assert mig_profile("H200-141GB", "1g.10gb") is None  # an H100 name on an H200
    assert mig_profile(None, "3g.71gb").accelerator_type == "H200-141GB"


def test_mig_share_reads_any_profile_name():
    assert mig_share("mig-2g.35gb") == Fraction(2, 7)
    assert mig_share("1g.23gb+me") == Fraction(1, 7)
    for bad in ("gpu", "8g.99gb", "0g.5gb", "1g", "xg.5gb"):
        assert mig_share(bad) is None, bad
