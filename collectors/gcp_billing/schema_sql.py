"""The export schema walked into the pieces of SQL the billing readers' statements are made of.

Two statements prove an export row plain and write its `billing_line_items` row, and both are
written from `EXPORT_FIELDS` (collectors/gcp_billing/schema.py) rather than by hand: the
columnar reader's (reader_sql.py beside this file) and the in-place read's
(ingest/gcp_billing/in_place_sql.py). What they share is here: the fields by kind (numbers,
times, repeated records), the canonical text row_id hashes (collectors/gcp_billing/
canonical.py's, a member per field, keys sorted, empty values left out), a number's
Decimal.normalize() text, and the select list of `billing_line_items`' columns in their
order (BILLING_SCHEMA), each column taken from the export field the per-row normaliser takes
it from (normalise.py's TEXT_FIELDS and LABEL_FIELDS).

A field added to EXPORT_FIELDS is in every piece its kind is in: its member of the canonical
text, its parse, its number checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from flopledger.collectors.gcp_billing.normalise import LABEL_FIELDS, TEXT_FIELDS
from flopledger.collectors.gcp_billing.schema import BILLING_SCHEMA, ExportField

NUMBERS = ("FLOAT", "NUMERIC")
# Decimal.normalize() in fixed point of a plain decimal text: how each dialect asks for a point.
Point = Callable[[str], str]


def leaves(fields: tuple[ExportField, ...], prefix: str = "") -> Iterator[tuple[str, ExportField]]:
    """Each field that is neither a record nor inside a repeated one, by its dotted path, in
    schema order."""
    for field in fields:
        path = f"{prefix}{field.name}"
        if field.mode == "REPEATED":
            continue
        if field.type == "RECORD":
            yield from leaves(field.fields, f"{path}.")
        else:
            yield path, field


def numbers(fields: tuple[ExportField, ...]) -> list[str]:
    """The paths of the numbers a row has once (a credit's amount is in a list)."""
    return [path for path, field in leaves(fields) if field.type in NUMBERS]


def times(fields: tuple[ExportField, ...]) -> list[str]:
    return [path for path, field in leaves(fields) if field.type == "TIMESTAMP"]


def repeated(
    fields: tuple[ExportField, ...], prefix: str = ""
) -> Iterator[tuple[str, ExportField]]:
    """Each repeated record outside any other, by its dotted path, in schema order."""
    for field in fields:
        path = f"{prefix}{field.name}"
        if field.mode == "REPEATED":
            yield path, field
        elif field.type == "RECORD":
            yield from repeated(field.fields, f"{path}.")


def name(path: str) -> str:
    """A column name for a dotted path (`usage.amount` -> `usage_amount`)."""
    return path.replace(".", "_")


def number_text(text: str, point: Point) -> str:
    """Decimal.normalize() in fixed point of a plain decimal text ('78.3724050' -> '78.372405',
    '-0.0' -> '0'): collectors/gcp_billing/canonical.py's number text."""
    trimmed = f"(CASE WHEN {point(text)} THEN rtrim(rtrim({text}, '0'), '.') ELSE {text} END)"
    return f"CASE WHEN {trimmed} = '-0' THEN '0' ELSE {trimmed} END"


@dataclass(frozen=True)
class Layout:
    """How a statement writes a JSON object's members: the call joining them (`start` and
    `end` around the members), and whether members are indented under their object (else
    every member is at four spaces and every end at none)."""

    start: str
    end: str
    nested: bool


# A member's value: (field, dotted path, SQL reference, indent) -> SQL text.
Member = Callable[[ExportField, str, str, int], str]


def canonical_object(
    fields: tuple[ExportField, ...],
    path: str,
    ref: str,
    member: Member,
    layout: Layout,
    indent: int = 0,
) -> str:
    """The canonical JSON text of a record (`ref`, at `path`): a member per field whose value
    is not empty, keys sorted, none when every member is; a record inside it the same way, any
    other field's value as `member` writes it."""
    pad = indent + 4 if layout.nested else 4
    items = []
    for field in sorted(fields, key=lambda f: f.name):
        at, of = f"{path}.{field.name}" if path else field.name, f"{ref}.{field.name}"
        if field.type == "RECORD" and field.mode != "REPEATED":
            value = canonical_object(field.fields, at, of, member, layout, pad)
        else:
            value = member(field, at, of, pad)
        items.append(f"{' ' * pad}'\"{field.name}\":' || {value}")
    end = " " * indent if layout.nested else ""
    return f"'{{' || nullif({layout.start}\n" + ",\n".join(items) + f"\n{end}{layout.end} || '}}'"


def text_value(ref: str) -> str:
    return f"'\"' || {ref} || '\"'"


def boolean_value(ref: str) -> str:
    return f"CASE WHEN {ref} THEN 'true' WHEN NOT {ref} THEN 'false' END"


def scalar_value(field: ExportField, ref: str) -> str:
    """A string's or a boolean's member value (canonical.py's); any other is not written."""
    if field.type == "STRING":
        return text_value(ref)
    if field.type == "BOOLEAN":
        return boolean_value(ref)
    raise ValueError(f"no canonical text written for {ref} ({field.mode} {field.type})")


def billing_columns(ref: str, written: Mapping[str, str], computed: frozenset[str]) -> list[str]:
    """`billing_line_items`' columns in their order, each `expression AS column`: a text column
    from its export field (`ref`'s), a column the statement works out by its name in an
    earlier step (`computed`), any other as `written` says."""
    found = []
    for column in BILLING_SCHEMA.names:
        if column in written:
            expression = written[column]
        elif column in TEXT_FIELDS:
            expression = f"{ref}.{TEXT_FIELDS[column]}"
        elif column in computed:
            expression = column
        else:
            raise KeyError(f"no expression for billing_line_items.{column}")
        found.append(column if expression == column else f"{expression} AS {column}")
    return found


def label_columns(write: Callable[[str, str], str]) -> dict[str, str]:
    """The map columns (labels, system_labels, project_labels), each as `write(column, path)`
    says from its repeated key/value record."""
    return {column: write(column, path) for column, path in LABEL_FIELDS.items()}


def block(indent: int, lines: list[str], sep: str = "") -> str:
    """Lines for a template's hole, each indented, `sep` after each but the last."""
    return f"{sep}\n".join(" " * indent + line for line in lines)


def fill(template: str, **parts: str) -> str:
    """A template's `<<name>>` holes filled, each from `parts`: every hole, and no part more."""
    for key, text in parts.items():
        hole = f"<<{key}>>"
        if hole not in template:
            raise KeyError(f"the template has no {hole}")
        template = template.replace(hole, text)
    if "<<" in template:
        raise KeyError(f"a hole left unfilled: {template[template.index('<<') :][:40]!r}")
    return template
