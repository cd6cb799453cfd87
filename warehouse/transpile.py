"""The models, written once in DuckDB's dialect, in BigQuery's (SQLGlot, at run time).

Nothing here keeps a second copy of a model: `to_bigquery` reads the same text the DuckDB
warehouse runs and rewrites its syntax tree:

- the macros of models/functions.sql (BigQuery has none) are expanded in place, their
  parameters replaced by the call's arguments;
- `labels['team']` (a DuckDB MAP) reads the JSON object BigQuery keeps in that column
  (`JSON_VALUE(labels, '$."team"')`): the BigQuery warehouse stores maps as JSON text;
- integer nano-units (HUGEINT) are BIGNUMERIC(38, 0) and exact money DECIMAL(38, 9) is
  NUMERIC, so sums and shares are exact to the nano-dollar on both engines;
- DuckDB's naive UTC TIMESTAMP is BigQuery's TIMESTAMP (not DATETIME);
- `$name` parameters are `@name`.

`columns` reads a raw table's DDL (models/raw) as BigQuery schema fields, with its comments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, lru_cache

import sqlglot
from sqlglot import exp
from sqlglot.expressions import DType

from flopledger import models
from flopledger.models.sql_text import without_comments

_MACRO = re.compile(
    r"CREATE\s+OR\s+REPLACE\s+MACRO\s+(\w+)\s*\(([^)]*)\)\s+AS\s+(.*?);\s*(?=CREATE|\Z)",
    re.S | re.I,
)


# A macro whose value BigQuery would type otherwise: from_nanos is DECIMAL(38, 9) in DuckDB
# (DECIMAL(38, 0) x DECIMAL(10, 9)); BigQuery's BIGNUMERIC x NUMERIC would be BIGNUMERIC.
RESULT_TYPES = {"from_nanos": "DECIMAL(38, 9)"}


class TranspileError(ValueError):
    """A construct of a model that has no BigQuery form here (the message names it)."""


@dataclass(frozen=True)
class Macro:
    params: tuple[str, ...]
    body: exp.Expr


@cache
def macros() -> dict[str, Macro]:
    """models/functions.sql's macros by (lower-case) name, bodies parsed as DuckDB."""
    text = without_comments(models.functions_sql())
    found = {}
    for name, params, body in _MACRO.findall(text):
        names = tuple(p.strip().lower() for p in params.split(",") if p.strip())
        found[name.lower()] = Macro(names, sqlglot.parse_one(body, read="duckdb"))
    return found


def _expand(node: exp.Expr) -> exp.Expr:
    """A call to a macro becomes its body (in parentheses) with the arguments put in."""
    if not isinstance(node, exp.Anonymous):
        return node
    macro = macros().get(str(node.this).lower())
    if macro is None:
        return node
    args = [arg.copy() for arg in node.expressions]
    if len(args) != len(macro.params):
        raise TranspileError(
            f"{node.this}: {len(args)} arguments, the macro takes {len(macro.params)}"
        )
    bound = dict(zip(macro.params, args, strict=True))

    def put(part: exp.Expr) -> exp.Expr:
        if isinstance(part, exp.Column) and not part.table and part.name.lower() in bound:
            arg = bound[part.name.lower()].copy()
            return arg if isinstance(arg, exp.Column | exp.Literal) else exp.Paren(this=arg)
        return part

    body = macro.body.copy().transform(put).transform(_expand)
    result = RESULT_TYPES.get(str(node.this).lower())
    if result is not None:  # the type DuckDB gives the macro's value, kept on BigQuery
        return exp.cast(body, exp.DataType.build(result, dialect="duckdb"))
    return exp.Paren(this=body)


@cache
def map_columns() -> frozenset[str]:
    """The names of the raw tables' MAP columns (labels, system_labels, ...)."""
    found = set()
    for table in models.raw_tables():
        tree = sqlglot.parse_one(without_comments(table.sql), read="duckdb")
        for definition in tree.find_all(exp.ColumnDef):
            kind = definition.args.get("kind")
            if isinstance(kind, exp.DataType) and kind.this == exp.DataType.Type.MAP:
                found.add(definition.name)
    return frozenset(found)


def _map_access(node: exp.Expr) -> exp.Expr:
    """`m[key]` on a MAP column reads the JSON object BigQuery keeps there: JSON_VALUE(m[key])
    (BigQuery's JSON subscript takes any key expression, `k8s-label/team` and column values
    alike; a missing key is NULL, as in DuckDB)."""
    if not isinstance(node, exp.Bracket) or len(node.expressions) != 1:
        return node
    column = node.this
    if not (isinstance(column, exp.Column) and column.name in map_columns()):
        return node
    return exp.func("JSON_VALUE", node.copy())


def _slices(node: exp.Expr) -> exp.Expr:
    """`a[:-n]` (DuckDB: every element but the last n - 1) as an ARRAY subquery over the
    elements' offsets, which BigQuery has and its subscripts do not."""
    if not isinstance(node, exp.Bracket) or len(node.expressions) != 1:
        return node
    part = node.expressions[0]
    if not isinstance(part, exp.Slice) or part.this is not None:
        return node
    end = part.args.get("expression")
    if not (isinstance(end, exp.Neg) and isinstance(end.this, exp.Literal)):
        return node
    drop = int(end.this.name) - 1
    template = sqlglot.parse_one(
        "ARRAY(SELECT e FROM UNNEST(__array) AS e WITH OFFSET AS o "
        f"WHERE o < ARRAY_LENGTH(__array) - {drop} ORDER BY o)",
        read="bigquery",
    )
    return template.transform(
        lambda n: node.this.copy() if isinstance(n, exp.Column) and n.name == "__array" else n
    )


def _map_functions(node: exp.Expr) -> exp.Expr:
    """cardinality(m) and to_json(m) of a MAP column, on BigQuery's JSON object."""
    if not isinstance(node, exp.Func) or not node.expressions and node.this is None:
        return node
    name = (
        node.sql_name().lower() if not isinstance(node, exp.Anonymous) else str(node.this).lower()
    )
    arg = node.this if not isinstance(node, exp.Anonymous) else seq_first(node.expressions)
    if not (isinstance(arg, exp.Column) and arg.name in map_columns()):
        return node
    if name in ("cardinality", "array_size", "map_size"):
        return exp.func("ARRAY_LENGTH", exp.func("JSON_KEYS", arg.copy()))
    if name in ("to_json", "json_format"):
        return exp.func("TO_JSON_STRING", arg.copy())
    if name == "map_keys":
        return exp.func("JSON_KEYS", arg.copy())
    return node


def _overlaps(node: exp.Expr) -> exp.Expr:
    """list_has_any(a, b) (SQLGlot writes BigQuery's missing `a && b`): an element of a in b."""
    if not isinstance(node, exp.ArrayOverlaps):
        return node
    test = sqlglot.parse_one(
        "EXISTS(SELECT 1 FROM UNNEST(__a) AS __e WHERE __e IN UNNEST(__b))", read="bigquery"
    )
    sides = {"__a": node.this, "__b": node.expression}
    return test.transform(
        lambda n: sides[n.name].copy() if isinstance(n, exp.Column) and n.name in sides else n
    )


def _lambda(node: exp.Expr | None) -> tuple[str, exp.Expr] | None:
    """(variable, body) of a one-argument DuckDB lambda, or None."""
    if isinstance(node, exp.Lambda) and len(node.expressions) == 1:
        return node.expressions[0].name, node.this
    return None


def _put(template: str, **parts: exp.Expr) -> exp.Expr:
    """A BigQuery template with `__name` columns replaced by the given expressions."""
    tree = sqlglot.parse_one(template, read="bigquery")
    return tree.transform(
        lambda n: (
            parts[n.name[2:]].copy()
            if isinstance(n, exp.Column) and n.name.startswith("__") and n.name[2:] in parts
            else n
        )
    )


def _list_lambdas(node: exp.Expr) -> exp.Expr:
    """DuckDB's list lambdas, which BigQuery has not, as subqueries over UNNEST (the lambda's
    variable is the element's alias):

    - list_sum(list_transform([list_filter(x, lambda c: p)], lambda c: e))
      -> (SELECT SUM(e) FROM UNNEST(x) AS c [WHERE p]);
    - list_sort(list_distinct(list_transform(x, lambda c: e)))
      -> ARRAY(SELECT DISTINCT v FROM (SELECT e AS v FROM UNNEST(x) AS c) WHERE v IS NOT NULL
      ORDER BY v) (list_distinct drops NULLs; a BigQuery array cannot hold one)."""
    if isinstance(node, exp.Anonymous) and str(node.this).lower() == "list_sum":
        inner = node.expressions[0] if len(node.expressions) == 1 else None
        mapped = _lambda(inner.args.get("expression")) if isinstance(inner, exp.Transform) else None
        if mapped is None or inner is None:
            return node
        source: exp.Expr = inner.this
        where: exp.Expr = exp.true()
        filtered = (
            _lambda(source.args.get("expression")) if isinstance(source, exp.ArrayFilter) else None
        )
        if filtered is not None and filtered[0] == mapped[0]:
            source, where = source.this, filtered[1]
        template = f"(SELECT SUM(__e) FROM UNNEST(__x) AS {mapped[0]} WHERE __p)"
        return _put(template, e=mapped[1], x=source, p=where)
    if isinstance(node, exp.ArraySort) and isinstance(node.this, exp.ArrayDistinct):
        inner = node.this.this
        mapped = _lambda(inner.args.get("expression")) if isinstance(inner, exp.Transform) else None
        if mapped is None:
            return node
        template = (
            "ARRAY(SELECT DISTINCT v FROM (SELECT __e AS v FROM UNNEST(__x) AS "
            f"{mapped[0]}) WHERE v IS NOT NULL ORDER BY v)"
        )
        return _put(template, e=mapped[1], x=inner.this)
    return node


def _element_rows(source: exp.Expr, ordered: bool) -> tuple[str, exp.Expr]:
    """(FROM clause text, array): an array's elements in order. `coalesce(x, [])` is x (a
    BigQuery array is never NULL; UNNEST of none is no row). Without `ordered` the OFFSET is
    left out: bqemulator 1.4.0 refuses WITH OFFSET on an array of STRUCTs, and keeps UNNEST's
    order without it (BigQuery does in practice, but promises it only with the OFFSET)."""
    if isinstance(source, exp.Coalesce) and all(
        isinstance(e, exp.Array) and not e.expressions for e in source.expressions
    ):
        source = source.this
    return ("WITH OFFSET AS element_at" if ordered else ""), source


def _ordered_by(ordered: bool) -> str:
    return " ORDER BY element_at" if ordered else ""


def _element_lambdas(node: exp.Expr, ordered: bool = True) -> exp.Expr:
    """The list lambdas of the in-place billing model (ingest/gcp_billing/sql/
    billing_export_normalised.sql) as subqueries over UNNEST, the elements in their order:

    - array_to_string(list_transform(x, lambda c: e), sep)
      -> (SELECT STRING_AGG(e, sep ORDER BY offset) FROM UNNEST(x) AS c WITH OFFSET);
    - map_from_entries(list_transform(x, lambda c: {'key': k, 'value': v})) -> the JSON object
      BigQuery keeps a MAP as, its members written by TO_JSON_STRING (escaped as JSON);
    - list_transform(x, lambda c: e) elsewhere -> ARRAY(SELECT e FROM UNNEST(x) AS c ...)."""
    if isinstance(node, exp.ArrayToString) and isinstance(node.this, exp.Transform):
        mapped = _lambda(node.this.args.get("expression"))
        if mapped is None:
            return node
        offset, source = _element_rows(node.this.this, ordered)
        template = (
            f"(SELECT STRING_AGG(__e, __sep{_ordered_by(ordered)}) "
            f"FROM UNNEST(__x) AS {mapped[0]} {offset})"
        )
        return _put(template, e=mapped[1], sep=node.expression, x=source)
    if isinstance(node, exp.MapFromEntries):
        inner = node.this
        mapped = _lambda(inner.args.get("expression")) if isinstance(inner, exp.Transform) else None
        if mapped is None or inner is None or not isinstance(mapped[1], exp.Struct):
            return node
        fields = {
            f.name: f.expression for f in mapped[1].expressions if isinstance(f, exp.PropertyEQ)
        }
        if set(fields) != {"key", "value"}:
            return node
        offset, source = _element_rows(inner.this, ordered)
        template = (
            "PARSE_JSON(CONCAT('{', COALESCE((SELECT STRING_AGG(TO_JSON_STRING(__k) || ':' || "
            f"TO_JSON_STRING(__v), ','{_ordered_by(ordered)}) FROM UNNEST(__x) AS {mapped[0]} "
            f"{offset}), ''), '}}'))"
        )
        return _put(template, k=fields["key"], v=fields["value"], x=source)
    if isinstance(node, exp.Transform) and not isinstance(node.parent, exp.ArrayToString):
        mapped = _lambda(node.args.get("expression"))
        if mapped is None:
            return node
        offset, source = _element_rows(node.this, ordered)
        template = (
            f"ARRAY(SELECT __e FROM UNNEST(__x) AS {mapped[0]} {offset}{_ordered_by(ordered)})"
        )
        return _put(template, e=mapped[1], x=source)
    return node


@cache
def column_types() -> dict[str, frozenset[DType]]:
    """Each raw table column's name (models/raw DDL) with the types it is declared with."""
    found: dict[str, set[DType]] = {}
    for table in models.raw_tables():
        tree = sqlglot.parse_one(without_comments(table.sql), read="duckdb")
        for definition in tree.find_all(exp.ColumnDef):
            kind = definition.args.get("kind")
            if isinstance(kind, exp.DataType) and isinstance(definition.parent, exp.Schema):
                found.setdefault(definition.name, set()).add(kind.this)
    return {name: frozenset(kinds) for name, kinds in found.items()}


def time_kind(node: exp.Expr) -> str | None:
    """'DATE' or 'TIMESTAMP' where an expression's type shows in the SQL (a CAST, a DATE or
    TIMESTAMP literal, CURRENT_DATE, a raw table's column declared with only that type),
    else None."""
    if isinstance(node, exp.Paren):
        return time_kind(node.this)
    if isinstance(node, exp.Cast | exp.TryCast):
        kind = node.to.this
        return (
            "DATE"
            if kind == exp.DataType.Type.DATE
            else ("TIMESTAMP" if kind in _TIMESTAMPS else None)
        )
    if isinstance(node, exp.CurrentDate | exp.Date | exp.DateStrToDate | exp.LastDay):
        return "DATE"
    if isinstance(node, exp.CurrentTimestamp):
        return "TIMESTAMP"
    if isinstance(node, exp.Max | exp.Min | exp.AnyValue):
        return time_kind(node.this)
    if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Select):
        selected = node.this.expressions
        return time_kind(selected[0].unalias()) if len(selected) == 1 else None
    if isinstance(node, exp.Column):
        kinds = column_types().get(node.name, frozenset())
        if kinds == {exp.DataType.Type.DATE}:
            return "DATE"
        if kinds and kinds <= set(_TIMESTAMPS):
            return "TIMESTAMP"
        if not kinds and _DAY_COLUMN.fullmatch(node.name):
            return "DATE"  # the models' naming: a `day` or `<what>_day` column is a DATE
    return None


# `day`, `usage_day`, `end_day` (not `cost_per_day`, an amount a day, nor `hour_of_day`)
_DAY_COLUMN = re.compile(r"(?:\w*_)?day(?<!per_day)(?<!of_day)", re.I)


def _time_format(node: exp.TimeToStr) -> exp.Expr:
    """strftime(t, f) by t's type, as BigQuery types it (SQLGlot writes FORMAT_DATE for all,
    which BigQuery refuses a TIMESTAMP; the emulator takes it): a DATE with a date-only format
    is FORMAT_DATE(f, d); a TIMESTAMP is FORMAT_TIMESTAMP(f, t, 'UTC'); anything else (a type
    the SQL does not show, or a DATE with a time of day) is FORMAT_TIMESTAMP(f, CAST(t AS
    TIMESTAMP), 'UTC'), right for a DATE (its midnight UTC, as DuckDB formats it) and a
    TIMESTAMP alike. DuckDB's naive timestamps are UTC: 'UTC' says so, whatever the default."""
    form = node.args.get("format")
    if not isinstance(form, exp.Literal):
        return node
    kind = time_kind(node.this)
    time_of_day = any(p in form.name for p in ("%H", "%M", "%S", "%f", "%I", "%p"))
    if kind == "DATE" and not time_of_day:
        return exp.func("FORMAT_DATE", form.copy(), node.this.copy())
    value = node.this.copy()
    if kind != "TIMESTAMP":
        value = exp.cast(value, exp.DataType.build("TIMESTAMP", dialect="bigquery"))
    return exp.func("FORMAT_TIMESTAMP", form.copy(), value, exp.Literal.string("UTC"))


def _text_functions(node: exp.Expr) -> exp.Expr:
    """sha256(x) is DuckDB's hex digest (BigQuery's SHA256 gives bytes), and strftime(t, f)
    formats by t's type (`_time_format`)."""
    if isinstance(node, exp.SHA2) and str(node.args.get("length", "256")) == "256":
        # lower-case as DuckDB's (BigQuery's TO_HEX is: SQLGlot writes LOWER(TO_HEX(x)) as TO_HEX)
        return exp.func("LOWER", exp.func("TO_HEX", exp.func("SHA256", node.this.copy())))
    if isinstance(node, exp.TimeToStr):
        return _time_format(node)
    return node


def _has_entries(node: exp.Expr) -> exp.Expr:
    """list_has_all(map_entries(m), map_entries(map(keys, values))) (the map column holds
    every key with its value) on BigQuery's JSON object: no key whose value differs."""
    if not (isinstance(node, exp.Anonymous) and str(node.this).lower() == "list_has_all"):
        return node
    have, want = (node.expressions + [None, None])[:2]
    if not all(
        isinstance(e, exp.Anonymous) and str(e.this).lower() == "map_entries" for e in (have, want)
    ):
        return node
    column, wanted = have.expressions[0], want.expressions[0]
    if not (isinstance(column, exp.Column) and column.name in map_columns()):
        return node
    if not isinstance(wanted, exp.Map):
        return node
    template = (
        "NOT EXISTS(SELECT 1 FROM UNNEST(__k) AS label_key WITH OFFSET AS key_at "
        "JOIN UNNEST(__v) AS label_value WITH OFFSET AS value_at ON key_at = value_at "
        "WHERE __m[label_key] IS DISTINCT FROM label_value)"
    )
    return _put(template, k=wanted.args["keys"], v=wanted.args["values"], m=column)


def _map_entries(node: exp.Expr) -> exp.Expr:
    """map_entries(map(keys, values)) (a list of {key, value} in DuckDB; BigQuery has neither
    function) is the array of STRUCT(key, value) of the two arrays' elements paired by
    offset; and a JSON text's member named by an expression, json_extract_string(t, '$."' ||
    k || '"'), is JSON_VALUE(PARSE_JSON(t)[k]) (BigQuery takes only a constant JSONPath;
    its JSON subscript takes any key, quotes in it too)."""
    if isinstance(node, exp.Anonymous) and str(node.this).lower() == "map_entries":
        built = seq_first(node.expressions)
        if len(node.expressions) != 1 or not isinstance(built, exp.Map):
            return node
        template = (
            "ARRAY(SELECT AS STRUCT map_key AS key, map_value AS value FROM UNNEST(__k) AS "
            "map_key WITH OFFSET AS key_at JOIN UNNEST(__v) AS map_value WITH OFFSET AS "
            "value_at ON key_at = value_at ORDER BY key_at)"
        )
        return _put(template, k=built.args["keys"], v=built.args["values"])
    if isinstance(node, exp.JSONExtractScalar):
        path = node.expression
        if not (isinstance(path, exp.DPipe) and isinstance(path.this, exp.DPipe)):
            return node
        head, key, tail = path.this.this, path.this.expression, path.expression
        if (
            isinstance(head, exp.Literal)
            and head.name == '$."'
            and isinstance(tail, exp.Literal)
            and tail.name == '"'
        ):
            return _put("JSON_VALUE(PARSE_JSON(__t)[__k])", t=node.this, k=key)
    return node


def _format(node: exp.Expr) -> exp.Expr:
    """DuckDB's format('{} of {}', a, b) is BigQuery's CONCAT('', CAST(a AS STRING), ' of ',
    CAST(b AS STRING)): null when an argument is null, as DuckDB's. (FORMAT('%t of %t') would
    write a null as NULL, and the emulator refuses %t.)"""
    if not isinstance(node, exp.Format) or not isinstance(node.this, exp.Literal):
        return node
    pieces = node.this.this.split("{}")
    args = [e.copy() for e in node.expressions]
    if len(args) != len(pieces) - 1:
        return node  # not DuckDB's plain {} form: left as it was
    parts: list[exp.Expr] = []
    for piece, arg in zip(pieces, [*args, None], strict=True):
        if piece:
            parts.append(exp.Literal.string(piece))
        if arg is not None:
            parts.append(exp.cast(arg, exp.DataType.build("VARCHAR")))
    return exp.Concat(expressions=parts or [exp.Literal.string("")])


def _json_text(node: exp.Expr) -> exp.Expr:
    """`CAST(to_json(x) AS VARCHAR)` (DuckDB: x as JSON text) is TO_JSON_STRING(x): a
    BigQuery CAST of JSON to STRING reads a JSON string's value, without its quotes."""
    if not (
        isinstance(node, exp.Cast)
        and node.to.this in (exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR)
    ):
        return node
    inner = node.this
    if isinstance(inner, exp.Cast) and inner.to.this == exp.DataType.Type.DECIMAL:
        # DuckDB writes a DECIMAL(p, s) with all s places, BigQuery a NUMERIC with as few as
        # it needs ('-3.24' for -3.240000000): FORMAT keeps DuckDB's text.
        places = [int(p.name) for p in inner.to.expressions][1:] or [3]
        return exp.Format(this=exp.Literal.string(f"%.{places[0]}f"), expressions=[inner.copy()])
    if isinstance(inner, exp.Anonymous) and str(inner.this).lower() == "to_json":
        return exp.func(
            "TO_JSON_STRING", *(a.copy().transform(_json_text) for a in inner.expressions)
        )
    if isinstance(inner, exp.Anonymous) and str(inner.this).upper() == "TO_JSON_STRING":
        return inner.copy()
    return node


def seq_first(items: list[exp.Expr]) -> exp.Expr | None:
    return items[0] if items else None


def _types(node: exp.Expr) -> exp.Expr:
    if not isinstance(node, exp.DataType):
        return node
    return bigquery_type(node)


_TIMESTAMPS = (
    exp.DataType.Type.TIMESTAMP,
    exp.DataType.Type.TIMESTAMPNTZ,
    exp.DataType.Type.TIMESTAMPTZ,
)


def _window_order(node: exp.Expr) -> exp.Expr:
    """A window's or an aggregate's ORDER BY takes BigQuery's null order (BigQuery has no
    NULLS FIRST/LAST there): the models order them by keys that are never null (hours, ids,
    ranks, coalesced names)."""
    if isinstance(node, exp.Ordered) and node.find_ancestor(exp.Window, exp.AggFunc) is not None:
        node.set("nulls_first", not node.args.get("desc"))
    return node


def _declared(text: str) -> exp.DataType:
    """A parameterized type kept as written: SQLGlot drops CAST's type parameters for
    BigQuery, and BIGNUMERIC without them has 38 decimal places, not the DuckDB type's."""
    return exp.DataType(this=exp.DataType.Type.USERDEFINED, kind=text)


def _functions(node: exp.Expr) -> exp.Expr:
    """DuckDB functions SQLGlot leaves as they are, or maps for another reading of them:
    the models call epoch_us / epoch_ms / epoch on timestamps (never on numbers), and
    range(a, b, INTERVAL) over timestamps excludes b."""
    if isinstance(node, exp.Anonymous) and str(node.this).lower() == "epoch_us":
        return exp.func("UNIX_MICROS", *(a.copy() for a in node.expressions))
    scale = node.args.get("scale") if isinstance(node, exp.UnixToTime) else None
    if scale is not None and str(scale.this) == "3":
        return exp.func("UNIX_MILLIS", node.this.copy())
    if isinstance(node, exp.TimeToUnix):
        micros = exp.func("UNIX_MICROS", node.this.copy())
        return exp.Div(this=micros, expression=exp.Literal.number("1e6"))
    if isinstance(node, exp.GenerateSeries) and isinstance(node.args.get("step"), exp.Interval):
        end = node.args["end"].copy()
        if node.args.get("is_end_exclusive"):
            end = exp.Sub(
                this=end,
                expression=exp.Interval(this=exp.Literal.string("1"), unit=exp.var("MICROSECOND")),
            )
        return exp.func(
            "GENERATE_TIMESTAMP_ARRAY", node.args["start"].copy(), end, node.args["step"].copy()
        )
    return node


def _medians(node: exp.Expr) -> exp.Expr:
    """median(x) is DuckDB's quantile_cont(x, 0.5) and quantile(x, q) its quantile_disc(x, q);
    BigQuery has neither name (then `_percentiles` makes them analytic)."""
    if isinstance(node, exp.Median):
        return exp.PercentileCont(this=node.this.copy(), expression=exp.Literal.number("0.5"))
    if isinstance(node, exp.Quantile):
        return exp.PercentileDisc(this=node.this.copy(), expression=node.args["quantile"].copy())
    return node


def _percentiles(node: exp.Expr) -> exp.Expr:
    """quantile_cont(x, q) as an aggregate (DuckDB; exact) is BigQuery's PERCENTILE_CONT, which
    BigQuery has only as an analytic function: the grouped SELECT reads a subquery that adds
    PERCENTILE_CONT(x, q) OVER (PARTITION BY <the GROUP BY keys>) and takes its MAX per group
    (every row of a group holds the same value; NULLs skipped on both engines). APPROX_QUANTILES
    would be approximate."""
    if not isinstance(node, exp.Select):
        return node
    found = [
        p
        for p in node.find_all(exp.PercentileCont, exp.PercentileDisc)
        if p.find_ancestor(exp.Select) is node and not isinstance(p.parent, exp.Window)
    ]
    if not found:
        return node
    group = node.args.get("group")
    source = node.args.get("from_") or node.args.get("from")
    if (group is not None and group.args.get("all")) or node.args.get("joins") or source is None:
        raise TranspileError(
            "quantile_cont needs one table and an explicit GROUP BY to transpile for BigQuery"
        )
    keys = [k.copy() for k in group.expressions] if group is not None else []
    table = source.this
    inner = exp.select("*").from_(table.copy())
    where = node.args.get("where")
    if where is not None:
        inner = inner.where(where.this.copy())
    for i, percentile in enumerate(found):
        name = f"__percentile_{i}"
        window = exp.Window(this=percentile.copy(), partition_by=[k.copy() for k in keys])
        inner = inner.select(exp.alias_(window, name))
        percentile.replace(exp.Max(this=exp.column(name, table=table.alias_or_name)))
    alias = exp.TableAlias(this=exp.to_identifier(table.alias_or_name))
    node.set(source.arg_key, exp.From(this=exp.Subquery(this=inner, alias=alias)))
    node.set("where", None)
    return node


_CALENDAR_UNITS = ("MONTH", "QUARTER", "YEAR")


def _calendar_intervals(node: exp.Expr) -> exp.Expr:
    """t +/- INTERVAL n MONTH (QUARTER, YEAR): BigQuery refuses a TIMESTAMP plus an interval with
    a month part; TIMESTAMP(DATETIME_ADD(DATETIME(t), ...)) keeps DuckDB's value (the time of
    day kept, a month's end clamped, UTC both sides; a DATE gives a TIMESTAMP as in DuckDB)."""
    if not isinstance(node, exp.Add | exp.Sub) or not isinstance(node.expression, exp.Interval):
        return node
    interval = node.expression
    unit = interval.args.get("unit")
    if unit is None or not str(unit.name).upper().startswith(_CALENDAR_UNITS):
        return node
    amount = interval.this.copy()
    if isinstance(amount, exp.Literal) and amount.is_string:
        amount = exp.Literal.number(amount.name)
    if isinstance(node, exp.Sub):
        amount = exp.Neg(this=amount)
    start = exp.func("DATETIME", node.this.copy().transform(_calendar_intervals))
    unit_name = str(unit.name).upper().rstrip("S")
    shifted = exp.DatetimeAdd(this=start, expression=amount, unit=exp.var(unit_name))
    return exp.func("TIMESTAMP", shifted)


def _date_intervals(node: exp.Expr) -> exp.Expr:
    """d +/- INTERVAL n DAY (or WEEK) of a DATE (`time_kind`) is DATE_ADD / DATE_SUB: BigQuery's
    DATE plus an interval is a DATETIME, which BigQuery compares with a DATE but which
    GREATEST / DATE_DIFF with a DATE would type otherwise. DuckDB's value is a TIMESTAMP at the
    day's midnight: the same day either way."""
    if not isinstance(node, exp.Add | exp.Sub) or not isinstance(node.expression, exp.Interval):
        return node
    unit = node.expression.args.get("unit")
    name = str(unit.name).upper().rstrip("S") if unit is not None else ""
    if name not in ("DAY", "WEEK") or time_kind(node.this) != "DATE":
        return node
    amount = node.expression.this.copy()
    if isinstance(amount, exp.Literal) and amount.is_string:
        amount = exp.Literal.number(amount.name)
    kind = exp.DateAdd if isinstance(node, exp.Add) else exp.DateSub
    return kind(this=node.this.copy(), expression=amount, unit=exp.var(name))


def _null_skipping(node: exp.Expr) -> exp.Expr:
    """greatest/least skip NULLs in DuckDB (NULL only when every argument is); BigQuery's return
    NULL if any argument is. Each argument becomes COALESCE(it, the others...): a NULL one takes
    another's value, which changes neither the greatest nor the least, and the types are
    BigQuery's own supertype as before (no subquery, so it may stand inside an aggregate)."""
    if not isinstance(node, exp.Greatest | exp.Least):
        return node
    args = [a.transform(_null_skipping) for a in [node.this, *node.expressions]]
    if len(args) < 2:
        return node
    terms = [
        exp.Coalesce(this=args[i].copy(), expressions=[a.copy() for a in args[i + 1 :] + args[:i]])
        for i in range(len(args))
    ]
    return type(node)(this=terms[0], expressions=terms[1:])


def _qualify_clause(node: exp.Expr) -> exp.Expr:
    """BigQuery takes QUALIFY only with a WHERE, GROUP BY or HAVING: WHERE TRUE where none."""
    clauses = ("where", "group", "having")
    if (
        isinstance(node, exp.Select)
        and node.args.get("qualify") is not None
        and not any(node.args.get(k) is not None for k in clauses)
    ):
        node.set("where", exp.Where(this=exp.true()))
    return node


def bigquery_type(kind: exp.DataType) -> exp.DataType:
    """DuckDB's type as BigQuery's: exact where DuckDB is exact."""
    t = kind.this
    if t in (exp.DataType.Type.INT128, exp.DataType.Type.UINT128):
        return _declared("BIGNUMERIC(38, 0)")
    if t == exp.DataType.Type.DECIMAL:
        params = [int(p.name) for p in kind.expressions] or [18, 3]
        precision, scale = (params + [0])[:2]
        if scale <= 9 and precision - scale <= 29:
            return _declared(f"NUMERIC({precision}, {scale})")
        return _declared(f"BIGNUMERIC({precision}, {scale})")
    if t in _TIMESTAMPS:
        return exp.DataType.build("TIMESTAMP", dialect="bigquery")
    if t == exp.DataType.Type.MAP:
        return exp.DataType.build("JSON", dialect="bigquery")
    return kind


def _qualify(tree: exp.Expr, dataset: str) -> exp.Expr:
    """Every table named without a dataset (not a CTE's name) read from `project.dataset`
    (an intermediate table from its own dataset beside it: dataset_of).

    Done here rather than by the job's default dataset: bqemulator 1.4.0 re-serialises a
    query it gives a default dataset, and that drops NUMERIC's precision (2224.449648 comes
    back 2224.45); qualified names reach it, and BigQuery, as they are."""
    project, name = dataset.rsplit(".", 1)  # a domain-scoped project: example.com:analytics
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    for table in list(tree.find_all(exp.Table)):
        if table.db.lower() == "information_schema" and not table.catalog:
            # DuckDB's catalogue (`information_schema.tables`): the dataset's own.
            path = f"{project}.{name}.INFORMATION_SCHEMA.{table.name.upper()}"
            read = exp.Table(this=exp.to_identifier(path, quoted=True))
            read.set("alias", exp.TableAlias(this=exp.to_identifier(table.alias or table.name)))
            table.replace(read)
        elif table.args.get("db") is None and table.name and table.name not in ctes:
            table.set("db", exp.to_identifier(dataset_of(name, table.name)))
            table.set("catalog", exp.to_identifier(project, quoted=True))
        elif table.db == models.BOOKKEEPING_SCHEMA and not table.catalog:
            # DuckDB's bookkeeping schema: the dataset `<dataset>_bookkeeping` beside it.
            table.set("db", exp.to_identifier(f"{name}_{models.BOOKKEEPING_SCHEMA}"))
            table.set("catalog", exp.to_identifier(project, quoted=True))
    return tree


def dataset_of(dataset: str, table: str) -> str:
    """The dataset `table` lives in: the intermediate tables in `<dataset>_intermediate`
    (models/__init__.py), every other in `dataset` itself."""
    if table in models.intermediate_tables():
        return f"{dataset}_{models.INTERMEDIATE_SCHEMA}"
    if table in {m.name for m in models.bookkeeping_tables()}:
        return f"{dataset}_{models.BOOKKEEPING_SCHEMA}"
    return dataset


def _from_sources(tree: exp.Expr, sources: dict[str, str]) -> exp.Expr:
    """Each unqualified table named in `sources` read from elsewhere: a table id
    (`project.dataset.table`), or a BigQuery `SELECT * FROM table WHERE ...`, whose table is
    read in its place and whose WHERE joins the reading SELECT's (not a subquery: bqemulator
    1.4.0 cannot bind a subquery's row in correlated UNNEST subqueries, and the filter stays
    next to the scan, where BigQuery prunes partitions by it)."""
    for table in list(tree.find_all(exp.Table)):
        if table.args.get("db") is not None or table.name not in sources:
            continue
        alias = exp.TableAlias(this=exp.to_identifier(table.alias or table.name))
        source, where = sources[table.name], None
        if source.lstrip().upper().startswith("SELECT"):
            query = sqlglot.parse_one(source, read="bigquery")
            found = query.args.get("from_") or query.args.get("from")
            if not isinstance(query, exp.Select) or found is None or query.args.get("joins"):
                raise TranspileError(f"{table.name}: the source must be SELECT * FROM t WHERE ...")
            read = found.this.copy()
            read.set("alias", alias)
            where = query.args.get("where")
        else:
            project, dataset, name = source.rsplit(".", 2)
            read = exp.Table(
                this=exp.to_identifier(name),
                db=exp.to_identifier(dataset),
                catalog=exp.to_identifier(project, quoted=True),
                alias=alias,
            )
        select = table.find_ancestor(exp.Select)
        table.replace(read)
        if where is not None and select is not None:
            select.where(where.this.copy(), copy=False)
    return tree


def _unqualified(node: exp.Expr) -> exp.Expr:
    if isinstance(node, exp.Column) and node.table:
        return exp.column(node.name)
    return node


def _narrow(tree: exp.Expr, filters: dict[str, str]) -> exp.Expr:
    """Each unqualified read of a table in `filters` keeps only the rows its condition (DuckDB
    SQL over the table's columns) keeps: the condition joins the JOIN's ON where the table is
    joined, else the reading SELECT's WHERE, its columns qualified by the table's alias. Not a
    subquery, as DuckDB's narrowing is (models/grain.py): bqemulator 1.4.0 cannot bind a
    subquery's row in correlated UNNEST subqueries; for an inner or left join and a FROM the
    two mean the same, and a table on the kept side of a FULL or RIGHT JOIN is refused."""
    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    for table in list(tree.find_all(exp.Table)):
        if table.args.get("db") is not None or table.name not in filters or table.name in ctes:
            continue
        alias = table.alias or table.name
        condition = sqlglot.parse_one(filters[table.name], read="duckdb")
        for column in condition.find_all(exp.Column):
            if not column.table:
                column.set("table", exp.to_identifier(alias))
        join = table.parent if isinstance(table.parent, exp.Join) else None
        if join is not None and join.side in ("FULL", "RIGHT"):
            raise TranspileError(f"{table.name}: narrowed on a {join.side} JOIN's side")
        if join is not None and join.args.get("using") and join.side == "LEFT":
            # LEFT JOIN ... USING: no ON to join; its rows narrowed in a subquery of its own
            narrowed = exp.select("*").from_(exp.Table(this=exp.to_identifier(table.name)))
            narrowed = narrowed.where(condition.transform(_unqualified))
            table.replace(
                exp.Subquery(this=narrowed, alias=exp.TableAlias(this=exp.to_identifier(alias)))
            )
            continue
        if join is not None and not join.args.get("using"):
            on = join.args.get("on")
            join.set("on", exp.and_(on, condition) if on is not None else condition)
            continue
        select = table.find_ancestor(exp.Select)
        if select is None:
            raise TranspileError(f"{table.name}: read outside a SELECT")
        select.where(condition, copy=False)
    return tree


@lru_cache(maxsize=1024)
def to_bigquery(
    sql: str,
    dataset: str | None = None,
    ordered_unnest: bool = True,
    sources: tuple[tuple[str, str], ...] = (),
    narrow: tuple[tuple[str, str], ...] = (),
) -> str:
    """One DuckDB statement (a model or a named query) as BigQuery SQL; with `dataset`
    (`project.dataset`), its unqualified tables are that dataset's. `ordered_unnest` False
    leaves WITH OFFSET out of the element subqueries (`_element_rows`: bqemulator's limit).
    `sources` reads a table the statement names from elsewhere: (name, a table id
    `project.dataset.table`, or a BigQuery SELECT put in as a subquery). `narrow` keeps, of
    each table named, the rows a DuckDB condition keeps (`_narrow`: an incremental build's
    window, warehouse/bigquery.py)."""
    try:
        tree = sqlglot.parse_one(without_comments(sql), read="duckdb")
    except sqlglot.errors.ParseError as exc:
        raise TranspileError(f"not parsed as DuckDB SQL: {str(exc).splitlines()[0]}") from None
    if narrow:
        tree = _narrow(tree, dict(narrow))
    tree = tree.transform(_expand).transform(_slices).transform(_map_functions)
    tree = tree.transform(_list_lambdas).transform(_format).transform(_has_entries)
    tree = tree.transform(_map_entries)
    tree = tree.transform(lambda n: _element_lambdas(n, ordered_unnest))
    tree = tree.transform(_text_functions)
    tree = tree.transform(_json_text).transform(_map_access).transform(_types)
    tree = tree.transform(_functions).transform(_overlaps)
    tree = tree.transform(_medians).transform(_percentiles).transform(_calendar_intervals)
    tree = tree.transform(_date_intervals)
    tree = tree.transform(_null_skipping).transform(_qualify_clause)
    if sources:
        tree = _from_sources(tree, dict(sources))
    if dataset is not None:
        tree = _qualify(tree, dataset)
    tree = tree.transform(_window_order)
    return tree.sql(dialect="bigquery")


@dataclass(frozen=True)
class Column:
    """One column of a raw table as BigQuery declares it."""

    name: str
    type: str  # STRING, INT64, FLOAT64, BOOL, DATE, TIMESTAMP, NUMERIC, BIGNUMERIC, JSON, RECORD
    mode: str  # NULLABLE, REQUIRED, REPEATED
    description: str = ""
    fields: tuple[Column, ...] = field(default_factory=tuple)
    precision: int | None = None  # BIGNUMERIC's declared digits (DuckDB's DECIMAL(p, s))
    scale: int | None = None


_SCALARS = {
    exp.DataType.Type.VARCHAR: "STRING",
    exp.DataType.Type.TEXT: "STRING",
    exp.DataType.Type.CHAR: "STRING",
    exp.DataType.Type.BIGINT: "INT64",
    exp.DataType.Type.INT: "INT64",
    exp.DataType.Type.SMALLINT: "INT64",
    exp.DataType.Type.TINYINT: "INT64",
    exp.DataType.Type.UBIGINT: "NUMERIC",
    exp.DataType.Type.DOUBLE: "FLOAT64",
    exp.DataType.Type.FLOAT: "FLOAT64",
    exp.DataType.Type.BOOLEAN: "BOOL",
    exp.DataType.Type.DATE: "DATE",
    exp.DataType.Type.TIMESTAMP: "TIMESTAMP",
    exp.DataType.Type.TIMESTAMPNTZ: "TIMESTAMP",
    exp.DataType.Type.TIMESTAMPTZ: "TIMESTAMP",
    exp.DataType.Type.JSON: "JSON",
    exp.DataType.Type.MAP: "JSON",  # a JSON object (key to value)
}


def _column(name: str, kind: exp.DataType, mode: str, description: str = "") -> Column:
    if kind.this == exp.DataType.Type.ARRAY:
        inner = kind.expressions[0]
        return _column(name, inner, "REPEATED", description)
    if kind.this == exp.DataType.Type.STRUCT:
        fields = tuple(_column(f.name, f.args["kind"], "NULLABLE") for f in kind.expressions)
        return Column(name, "RECORD", mode, description, fields)
    if kind.this in _SCALARS:
        return Column(name, _SCALARS[kind.this], mode, description)
    if kind.this == exp.DataType.Type.INT128:
        return Column(name, "BIGNUMERIC", mode, description, precision=38, scale=0)
    if kind.this == exp.DataType.Type.DECIMAL:
        precision, scale = (int(p.name) for p in kind.expressions)
        if scale <= 9 and precision - scale <= 29:
            return Column(name, "NUMERIC", mode, description)
        return Column(name, "BIGNUMERIC", mode, description, precision=precision, scale=scale)
    raise TranspileError(
        f"column {name}: type {kind.sql(dialect='duckdb')} has no BigQuery form here"
    )


def columns(model: models.Model) -> tuple[Column, ...]:
    """A raw table's columns (models/raw DDL) as BigQuery schema fields, with comments."""
    tree = sqlglot.parse_one(without_comments(model.sql), read="duckdb")
    out = []
    for definition in tree.find_all(exp.ColumnDef):
        if not isinstance(definition.parent, exp.Schema):
            continue  # a STRUCT's field: part of its column
        required = any(
            isinstance(c.kind, exp.NotNullColumnConstraint) and not c.kind.args.get("allow_null")
            for c in definition.constraints
        )
        mode = "REQUIRED" if required else "NULLABLE"
        description = model.column_comments.get(definition.name, "")
        out.append(_column(definition.name, definition.args["kind"], mode, description))
    return tuple(out)
