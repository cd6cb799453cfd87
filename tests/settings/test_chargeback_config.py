"""allocation.shared_cost_policy / shared_cost_key: what team_chargeback spreads by, as read."""

from __future__ import annotations

import pytest

from flopledger.settings import ConfigError, load_config
from tests.conftest import write_config


def test_the_default_policy_is_proportional(tmp_path):
    config = load_config(write_config(tmp_path, ""))
    assert config.allocation.shared_cost_policy == "proportional"
    assert config.allocation.shared_cost_key == {}


def test_a_fixed_key_is_read(tmp_path):
    text = "allocation: {shared_cost_policy: fixed, shared_cost_key: {llm: 3, vision: 1}}\n"
    config = load_config(write_config(tmp_path, text))
    assert config.allocation.shared_cost_key == {"llm": 3, "vision": 1}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("allocation: {shared_cost_policy: fixed}\n", "fixed needs allocation.shared_cost_key"),
        ("allocation: {shared_cost_policy: by_vibes}\n", "allocation.shared_cost_policy"),
        (
            "allocation: {shared_cost_policy: fixed, shared_cost_key: {llm: 0}}\n",
            "every weight must be a positive integer",
        ),
        ("allocation: {shared_cost_key: {llm: '3'}}\n", "allocation.shared_cost_key.llm"),
    ],
)
def test_a_bad_policy_is_refused_in_one_line(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message) as err:
        load_config(write_config(tmp_path, text))
    assert "\n" not in str(err.value)
