"""What a billing SKU is: its accelerator, how it is bought, what it bills (issue 34).

The rules are data, in collectors/sku_rules.csv (its header says what each column means and the
order rules are tried); the accelerator type comes from the accelerator table's SKU patterns
(accelerators/). `classify_sku` is the one classifier: every billing read path stores its
answers in billing_line_items, and the marts read them from there.
"""

from __future__ import annotations

import csv
import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from flopledger.accelerators import match_sku

RULES_FILE = Path(__file__).with_name("sku_rules.csv")
ANSWERS = ("pricing_model", "commitment_fee", "commitment_term", "sku_kind")
SKU_KINDS = ("accelerator", "network", "storage", "cores", "memory", "compute", "other")


class Rule(NamedTuple):
    answer: str
    value: str
    service: str | None
    pattern: re.Pattern[str] | None
    traffic: str | None
    is_egress: bool | None

    def matches(self, description: str | None, service: str | None) -> bool:
        if self.service is not None and self.service != service:
            return False
        if self.pattern is None:
            return True
        return description is not None and self.pattern.search(description) is not None


class SkuInfo(NamedTuple):
    accelerator_type: str | None  # canonical name (H100-80GB, TPU-v5p); None: not an accelerator
    pricing_model: str  # on_demand, spot, commitment, reserved, dws
    sku_kind: str  # accelerator, network, storage, cores, memory, compute, other
    is_commitment_fee: bool  # a resource-based commitment's fee row
    commitment_term: str | None  # a fee's term (1 Year, 3 Years), None when it does not say
    network_traffic: str | None  # network SKUs: internet, inter_region, ... (None otherwise)
    is_egress: bool | None  # network SKUs: the traffic leaves the zone (None otherwise)


def _rule(line: int, row: dict[str, str]) -> Rule:
    where = f"{RULES_FILE.name} line {line}"
    if row["answer"] not in ANSWERS:
        raise ValueError(f"{where}: unknown answer {row['answer']!r}")
    if row["answer"] == "sku_kind" and row["value"] not in SKU_KINDS:
        raise ValueError(f"{where}: unknown sku_kind {row['value']!r}")
    if row["answer"] == "commitment_term" and (not row["pattern"] or "(" not in row["pattern"]):
        raise ValueError(f"{where}: a commitment_term rule's pattern has a group: the term")
    if row["is_egress"] not in ("", "true", "false"):
        raise ValueError(f"{where}: is_egress is true, false or empty")
    try:
        pattern = re.compile(row["pattern"]) if row["pattern"] else None
    except re.error as exc:
        raise ValueError(f"{where}: {exc}") from None
    return Rule(
        row["answer"],
        row["value"],
        row["service"] or None,
        pattern,
        row["traffic"] or None,
        None if not row["is_egress"] else row["is_egress"] == "true",
    )


def read_rules(path: Path = RULES_FILE) -> dict[str, tuple[Rule, ...]]:
    """The rules of each answer, in the order they are tried (comment lines left out); each
    answer but commitment_term must end with a rule that matches everything."""
    text = enumerate(path.read_text().splitlines(), 1)
    lines = [(n, t) for n, t in text if t.strip() and not t.startswith("#")]
    rows = csv.DictReader(t for _, t in lines)
    rules = [_rule(lines[i + 1][0], row) for i, row in enumerate(rows)]
    found = {a: tuple(r for r in rules if r.answer == a) for a in ANSWERS}
    for answer, chosen in found.items():
        last = chosen[-1] if chosen else None
        if answer != "commitment_term" and (last is None or last.service or last.pattern):
            raise ValueError(f"{path.name}: {answer} has no last rule matching every SKU")
    return found


RULES = read_rules()


def _first(answer: str, description: str | None, service: str | None) -> Rule:
    return next(r for r in RULES[answer] if r.matches(description, service))


def _term(description: str | None, service: str | None) -> str | None:
    """What the first matching commitment_term rule's first group matched (None: no rule)."""
    for rule in RULES["commitment_term"]:
        if (
            rule.pattern is not None
            and description is not None
            and rule.matches(description, service)
        ):
            return rule.pattern.search(description).group(1)  # type: ignore[union-attr]
    return None


def _kind(description: str | None, service: str | None) -> tuple[Rule, str | None]:
    """The first sku_kind rule that matches, and the accelerator type of an accelerator SKU
    (an accelerator rule counts only where the accelerator table names the type)."""
    for rule in RULES["sku_kind"]:
        if not rule.matches(description, service):
            continue
        if rule.value != "accelerator":
            return rule, None
        row = match_sku(description) if description else None
        if row is not None:
            return rule, row.name
    raise AssertionError("unreachable: read_rules checks the last rule matches every SKU")


# The services some rule names: any other service is classified as no service at all.
RULE_SERVICES = frozenset(r.service for rules in RULES.values() for r in rules if r.service)


def classify_sku(description: str | None, service: str | None = None) -> SkuInfo:
    """What the billing SKU `description` of service `service` is, by the rules (None: the row
    has no description or no service)."""
    return _classify(description, service if service in RULE_SERVICES else None)


@lru_cache(maxsize=65536)
def _classify(description: str | None, service: str | None) -> SkuInfo:
    kind, accelerator = _kind(description, service)
    fee = _first("commitment_fee", description, service).value == "true"
    return SkuInfo(
        accelerator_type=accelerator,
        pricing_model=_first("pricing_model", description, service).value,
        sku_kind=kind.value,
        is_commitment_fee=fee,
        commitment_term=_term(description, service) if fee else None,
        network_traffic=kind.traffic,
        is_egress=kind.is_egress,
    )
