"""SKU classification lives once, as data (collectors/sku_rules.csv, issue 34): no mart, query,
reader or dashboard SQL matches a SKU description itself. Each reads what billing_line_items
stores (accelerator_type, pricing_model, sku_kind, is_commitment_fee, commitment_term,
network_traffic, is_egress); a description may be shown, grouped, compared for equality
(joins, filters a user picked) or carried into an id, never searched."""

from pathlib import Path

import sqlglot
from sqlglot import exp

REPO = Path(__file__).parents[2]
DESCRIPTIONS = frozenset({"sku_description", "description", "charge_description"})
# What may take a description as an argument: it is carried, shown or counted, not read.
CARRIED = (
    exp.Coalesce, exp.Max, exp.Min, exp.Count, exp.AnyValue, exp.ArgMax, exp.ArgMin,
    exp.ConcatWs, exp.Concat, exp.Nullif, exp.Cast, exp.ArrayContains, exp.Distinct,
    exp.Case, exp.If,
)  # fmt: skip
# What a description passes through still being the description (under another name).
AS_IS = (exp.Column, exp.Coalesce, exp.Max, exp.Min, exp.AnyValue, exp.Nullif, exp.Cast)


def _is_description(node: exp.Expression, names: frozenset[str]) -> bool:
    if isinstance(node, exp.Column):
        return node.name in names
    return isinstance(node, AS_IS) and _is_description(node.this, names)


def _names(tree: exp.Expression) -> frozenset[str]:
    """The descriptions' names, with every alias a description is carried under as it is
    (`coalesce(sku_description, '') AS sku`)."""
    names, grown = DESCRIPTIONS, True
    while grown:
        aliases = {a.alias for a in tree.find_all(exp.Alias) if _is_description(a.this, names)}
        grown = not aliases <= names
        names = names | aliases
    return names


def _matchers(sql: str) -> list[str]:
    """Each expression of `sql` that tests or takes apart a SKU description."""
    found = []
    for tree in filter(None, sqlglot.parse(sql, read="duckdb")):
        names = _names(tree)
        for node in tree.walk():
            searches = isinstance(node, (exp.Like, exp.ILike, exp.SimilarTo, exp.RegexpLike))
            taken = isinstance(node, exp.Func) and not isinstance(node, CARRIED)
            if (searches or taken) and any(
                isinstance(arg, exp.Column) and arg.name in names for arg in node.iter_expressions()
            ):
                found.append(node.sql("duckdb"))
    return found


def _sql_files() -> list[Path]:
    return sorted(
        [*(REPO / "models").rglob("*.sql"), *(REPO / "dashboards" / "sql").rglob("*.sql")]
    )


def test_no_sql_matches_a_sku_description_itself():
    found = {str(p.relative_to(REPO)): _matchers(p.read_text()) for p in _sql_files()}
    assert {path: hits for path, hits in found.items() if hits} == {}


def test_the_check_sees_each_way_a_mart_matched_skus_before():
    # What the marts did before issue 34 (spend_daily, egress_daily, billing_hourly,
    # commitment_hourly): each is caught.
    before = [
        "SELECT 1 FROM b WHERE b.sku_description ILIKE p.pattern",
        "SELECT sku_description NOT ILIKE '%egress%' FROM b",
        "SELECT regexp_matches(d.sku, s.p) FROM (SELECT sku_description AS sku FROM b) AS d, s",
        "SELECT regexp_extract(f.sku_description, '(\\d+ Years?)\\s*$', 1) FROM f",
        "SELECT CASE WHEN sku_description LIKE 'Commitment%' THEN 1 END FROM b",
    ]
    assert all(_matchers(sql) for sql in before)
