"""`flopledger.yaml`: the one configuration file.

Relative paths are relative to the config file. Everything is checked when the file loads,
before anything runs: unknown keys, wrong types, values out of range, cron strings outside the
standard forms (settings/cron.py), and paths (settings/config_paths.py: plain paths that do
not exist, a file key naming a folder, a warehouse or dagster_home that could not be
written). Each problem is one line naming the key; all of them are said at once. A glob that
matches nothing is only a warning (that source then gives zero rows).
"""

from __future__ import annotations

import glob
import logging
import os
import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from flopledger.paths import is_glob
from flopledger.settings.config_paths import file_problem, folder_problem, warehouse_file_problem
from flopledger.settings.cron import cron_problem

log = logging.getLogger(__name__)


class ConfigError(Exception):
    """A configuration problem, said in one line; a file's problems, one line each."""


def _cron(value: str) -> str:
    problem = cron_problem(value)
    if problem:
        raise ValueError(problem)
    return value


Cron = Annotated[str, AfterValidator(_cron)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class WarehouseConfig(_Strict):
    """DuckDB (`path`, the default) or BigQuery (`project`, `dataset`, `location`;
    `endpoint` points at a local emulator instead of Google; docs/bigquery.md)."""

    kind: Literal["duckdb", "bigquery"] = "duckdb"
    path: str = "warehouse.duckdb"
    project: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9:.-]{3,62}[a-z0-9]$")
    dataset: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_]{1,1024}$")
    location: str | None = None
    endpoint: str | None = None
    # BigQuery refuses any query of the warehouse that would bill more (default 100 GiB).
    max_bytes_billed: int = Field(default=100 * 2**30, gt=0)
    # Days a remote object's copy stays in input_cache/ once its day (or its last read) is past.
    input_cache_days: int = Field(default=35, ge=1)

    @model_validator(mode="after")
    def _bigquery_names_its_dataset(self) -> WarehouseConfig:
        if self.kind == "bigquery" and (self.project is None or self.dataset is None):
            raise ValueError(
                "warehouse.kind bigquery needs warehouse.project and warehouse.dataset"
            )
        return self


class SourceConfig(_Strict):
    paths: list[str] = Field(default_factory=list)


class BigQueryExportConfig(_Strict):
    """The detailed billing export where Google writes it: a BigQuery table (docs/bigquery.md).

    Credentials are application-default (or the key file $GOOGLE_APPLICATION_CREDENTIALS names);
    `endpoint` points at a local emulator instead. Each run reads the ingestion-day partitions
    from the latest export_time taken (or the run's first day, or `history_start`), less
    `trailing_days`; every query is refused by BigQuery past `max_bytes_billed`."""

    table: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9:.-]*\.[A-Za-z0-9_]+\.[A-Za-z0-9_]+$")
    project: str | None = None  # where the query jobs run and are billed; default: the table's
    location: str | None = None  # the export dataset's location (US, EU, a region)
    endpoint: str | None = None
    max_bytes_billed: int = Field(default=10 * 2**30, gt=0)
    trailing_days: int = Field(default=3, ge=0, le=366)

    @property
    def job_project(self) -> str:
        return self.project or self.table.rsplit(".", 2)[0]


class GcpBillingConfig(SourceConfig):
    """Extract files (`paths`), the export table itself (`bigquery`), or both."""

    bigquery: BigQueryExportConfig | None = None


class CloudMonitoringConfig(SourceConfig):
    """Read saved `ListTimeSeriesResponse` pages (`paths`) or call the API (`project_id`)."""

    project_id: str | None = None
    endpoint: str | None = None
    filter: str | None = None
    inventory: str | None = None
    deadline_s: float = Field(default=30.0, strict=False)


class ProviderExportConfig(_Strict):
    """One provider's saved usage/costs pages (OpenAI organisation bucket format)."""

    provider: str
    usage: list[str] = Field(default_factory=list)
    costs: list[str] = Field(default_factory=list)


class ManagedInferenceConfig(SourceConfig):
    """Managed inference: gateway request logs (`paths`, LiteLLM spend-log NDJSON), providers'
    usage and cost exports, and the dated price book (CSV) that costs what came unpriced."""

    provider_exports: list[ProviderExportConfig] = Field(default_factory=list)
    price_book: str | None = None

    @staticmethod
    def matching(patterns: list[str]) -> list[Path]:
        """The local files a list of paths or globs matches now, sorted and de-duplicated."""
        return sorted(
            {f for p in patterns if not p.startswith("gs://") for f in _matching_files(p)}
        )

    def resolved(self, base: Path, key: str, problems: list[str]) -> dict[str, object]:
        """The exports' and price book's paths made absolute (plain paths must exist; what
        does not is added to `problems`)."""
        exports = []
        for i, export in enumerate(self.provider_exports):
            parts: dict[str, object] = {}
            for field in ("usage", "costs"):
                paths = [_resolve(base, p) for p in getattr(export, field)]
                for j, p in enumerate(paths):
                    where = f"{key}.provider_exports[{i}].{field}[{j}]"
                    _check_plain_path(problems, where, p, warn=False)
                parts[field] = paths
            exports.append(export.model_copy(update=parts))
        update: dict[str, object] = {"provider_exports": exports}
        if self.price_book:
            update["price_book"] = _resolve(base, self.price_book)
            _check_plain_path(problems, f"{key}.price_book", str(update["price_book"]), file=True)
        return update


class KubernetesConfig(SourceConfig):
    """Pods as runs: `paths` are the pod watcher's files (`flopledger kube-watch` writes them
    into `spool_dir`) and saved `kubectl get pods -A -o json` output. `labels` maps a role (run,
    job, team, experiment, workload_class, model, model_params, tokens_in, tokens_out,
    accelerator_type) to the pod label or annotation that says it (collectors/kubernetes/runs.py
    has the defaults). The watcher reads the cluster with in-cluster credentials, or a
    kubeconfig (null: $KUBECONFIG or ~/.kube/config) and context."""

    spool_dir: str | None = None
    kubeconfig: str | None = None
    context: str | None = None
    in_cluster: bool = False
    namespace: str | None = None  # null: every namespace
    project_id: str | None = None  # the cluster's project (null: match node names in any)
    labels: dict[str, str] = Field(default_factory=dict)


class SourcesConfig(_Strict):
    gcp_billing: GcpBillingConfig | None = None
    focus: SourceConfig | None = None
    jobs: SourceConfig | None = None
    nvml_spool: SourceConfig | None = None
    cloud_monitoring: CloudMonitoringConfig | None = None
    probes: SourceConfig | None = None
    managed_inference: ManagedInferenceConfig | None = None
    kubernetes: KubernetesConfig | None = None


TELEMETRY_MARTS_EVERY_HOURS = 6


class SchedulesConfig(_Strict):
    """When Dagster's daemon runs the jobs (cron, UTC): billing with its late-row window, and
    the hourly telemetry; the marts follow each (pipelines/schedules.py)."""

    billing: Cron = "0 5 * * *"
    telemetry: Cron = "15 * * * *"
    # The marts the samples feed are rebuilt after the telemetry ticks of the UTC hours this
    # divides (0, 6, 12 and 18 by default; 1: after every tick); the ticks between load the
    # samples only, and the next marts tick (or the daily run) takes them in.
    telemetry_marts_every_hours: int = Field(default=TELEMETRY_MARTS_EVERY_HOURS, ge=1, le=24)
    month_report: Cron = "0 7 * * *"  # daily: writes a closed month's report, or its revision


class MonthReportConfig(_Strict):
    """The month-close report (reports/, `flopledger report month`): where it is written, how
    many days after an invoice month's end late rows are waited for before the schedule writes
    it, and the address its alert links (the folder's URL where it is served; else a file path)."""

    out: str = "reports"
    settle_days: int = Field(default=5, ge=0, le=60)
    link_base: str | None = None


class DashboardConfig(_Strict):
    """`flopledger dashboard`: sign_in requires Streamlit's OIDC sign-in (st.login), configured
    in `.streamlit/secrets.toml` beside this file; without it the app refuses to show data."""

    sign_in: bool = False


# team_chargeback casts each weight to HUGEINT (INT128, below 1.7e38) and splits a month's
# amounts (integer nano-USD) as floor(amount_nanos * cumulative_weight / month_weight). With the
# weights summing to at most 1e12 that product stays below 1.7e38 for any month under 1.7e26
# nanos = 1.7e17 USD (over a thousand years of the world's output); 1e40, past HUGEINT, failed
# the cast itself. 1e12 still gives each of a thousand teams a weight of up to a billion.
MAX_SHARED_COST_WEIGHTS = 10**12


class AllocationConfig(_Strict):
    """run_label_key: the billing label naming a run. shared_cost_policy: how team_chargeback
    spreads what no run was allocated (unallocated idle and shared cost): none, proportional (to
    allocated cost), even, or fixed (by shared_cost_key, team -> positive integer weight)."""

    run_label_key: str = "run_id"
    shared_cost_policy: Literal["none", "proportional", "even", "fixed"] = "proportional"
    shared_cost_key: dict[str, Annotated[int, Field(le=MAX_SHARED_COST_WEIGHTS)]] = Field(
        default_factory=dict
    )

    @model_validator(mode="after")
    def _key_fits_policy(self) -> AllocationConfig:
        if any(w <= 0 for w in self.shared_cost_key.values()):
            raise ValueError("allocation.shared_cost_key: every weight must be a positive integer")
        if sum(self.shared_cost_key.values()) > MAX_SHARED_COST_WEIGHTS:
            raise ValueError(
                "allocation.shared_cost_key: the weights must sum to at most "
                f"{MAX_SHARED_COST_WEIGHTS:,} (got {sum(self.shared_cost_key.values()):,})"
            )
        if self.shared_cost_policy == "fixed" and not self.shared_cost_key:
            raise ValueError("allocation.shared_cost_policy fixed needs allocation.shared_cost_key")
        return self


class LimitsConfig(_Strict):
    """Bounds every reader checks (collectors/limits.py says why these defaults cannot
    overflow a sum): a value past one is quarantined with a reason. Timestamps must lie in
    [earliest, the run's day + future_days]; outside is quarantine, never a wider window."""

    earliest: date = Field(default=date(2000, 1, 1), strict=False)
    future_days: int = Field(default=7, ge=0, le=3660)
    max_money: float = Field(default=1e12, gt=0, le=1e15, strict=False)
    max_usage: float = Field(default=1e24, gt=0, le=1e26, strict=False)
    max_accelerator_seconds: float = Field(default=1e12, gt=0, le=1e15, strict=False)
    max_row_span_days: int = Field(default=366, ge=1, le=732)
    max_nodes_per_job: int = Field(default=4096, ge=1, le=1_000_000)
    # Accelerators on one node for a run whose accelerator type is not known (a known type is
    # held to the largest machine of it: accelerators/machines.py).
    max_accelerators_per_node: int = Field(default=64, ge=1, le=100_000)


class NetworkConfig(_Strict):
    """How long a call to a network service waits for an answer before it is reported (not
    retried: a hung endpoint hangs again). A refused connection is said within seconds
    whatever these are (clients/network.py)."""

    deadline_s: float = Field(default=30.0, gt=0, le=3600, strict=False)  # GCS, BigQuery, k8s
    webhook_deadline_s: float = Field(default=10.0, gt=0, le=600, strict=False)  # budget alerts


class Config(_Strict):
    warehouse: WarehouseConfig = Field(default_factory=WarehouseConfig)
    # Marts report in USD (the export's conversion rates are USD-based); another reporting
    # currency needs the fx_rates file applied to every mart, which is not built yet.
    reporting_currency: Literal["USD"] = "USD"
    history_start: date | None = Field(default=None, strict=False)
    # Dagster's instance (run history, materialisations, schedules' state): shared by
    # `flopledger run`, `flopledger ui` and the daemon. Default: `dagster_home/` beside the
    # warehouse file.
    dagster_home: str | None = None
    budgets: str | None = None
    # The accelerator price book (CSV, accelerators/prices.py): its rows override the
    # shipped accelerators/prices.csv. commitment_plan_days: the window commitment_plan
    # is built over (`flopledger plan commitments --days` picks another).
    price_book: str | None = None
    commitment_plan_days: int = Field(default=30, ge=1, le=3660)
    fx_rates: str | None = None
    allocation: AllocationConfig = Field(default_factory=AllocationConfig)
    dashboard: DashboardConfig = Field(default_factory=DashboardConfig)
    schedules: SchedulesConfig = Field(default_factory=SchedulesConfig)
    month_report: MonthReportConfig = Field(default_factory=MonthReportConfig)
    sources: SourcesConfig = Field(default_factory=SourcesConfig)
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    network: NetworkConfig = Field(default_factory=NetworkConfig)
    # Where the file was read from; not a key of the file.
    base_dir: str = Field(default=".", exclude=True)


def _matching_files(pattern: str) -> list[Path]:
    return [Path(p) for p in glob.glob(pattern, recursive=True) if Path(p).is_file()]


def _matches_a_file(pattern: str) -> bool:
    """Whether a glob matches at least one file (stops at the first: spools are large)."""
    return any(Path(p).is_file() for p in glob.iglob(pattern, recursive=True))


def _resolve(base: Path, value: str) -> str:
    if value.startswith("gs://") or Path(value).is_absolute():
        return value
    return os.path.normpath(base / value)


def _check(problems: list[str], key: str, value: str, problem: Callable[[str], str | None]) -> None:
    """Add `key`'s line to `problems` when `problem(value)` finds one."""
    try:
        found = problem(value)
    except OSError as exc:  # a folder on the way that cannot be searched
        found = f"{value} cannot be looked at ({exc.strerror})"
    if found:
        problems.append(f"{key}: {found}")


def _check_plain_path(
    problems: list[str], key: str, value: str, warn: bool = True, file: bool = False
) -> None:
    """A plain path must exist (and be a file, for a `file` key); a glob that matches nothing
    now is only a warning."""
    if value.startswith("gs://"):
        return
    if is_glob(value):
        if warn and not _matches_a_file(value):
            log.warning("%s: %s matches no file", key, value)
        return
    if not Path(value).exists():
        problems.append(f"{key}: {value} does not exist")
    elif file:
        _check(problems, key, value, file_problem)


class _Loader(yaml.SafeLoader):
    """YAML's safe loader with dates left as text: pydantic reads them, so a bad date (month
    13, year 0) is a line naming its key, not a ValueError out of the YAML parser."""


def _as_text(loader: _Loader, node: yaml.Node) -> str:
    if not isinstance(node, yaml.ScalarNode):  # `!!timestamp [...]`
        raise yaml.constructor.ConstructorError(None, None, "a date is text", node.start_mark)
    return str(loader.construct_scalar(node))


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _as_text)


def _error_lines(path: Path, err: ValidationError) -> list[str]:
    """One line per key pydantic refused (its first complaint about that key)."""
    lines: dict[str, str] = {}
    for error in err.errors():
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        if key in lines:
            continue
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            lines[key] = f"{path}: {key}: unknown key"
        elif message.startswith((f"{key}.", f"{key} ")):  # a block's rule naming its own key
            lines[key] = f"{path}: {message}"
        elif isinstance(error.get("input"), dict):
            lines[key] = f"{path}: {key}: {message}"
        else:
            lines[key] = f"{path}: {key}: {message} (got {error.get('input')!r})"
    return list(lines.values())


def _read(path: Path) -> dict[str, Any]:
    """The file's top-level mapping, or one line saying why there is none."""
    if not path.is_file():
        raise ConfigError(f"{path}: config file does not exist")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 YAML text (byte {exc.start} is not UTF-8)") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        data = yaml.load(text, Loader=_Loader) or {}  # _Loader is a SafeLoader
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc.__class__.__name__})") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of keys at the top level")
    return data


def load_config(path: str | Path, warn: bool = True) -> Config:
    """Read and validate `flopledger.yaml`; every relative path made absolute.

    Every problem found is one line of the ConfigError: each key pydantic refuses, then each
    path that fails its check (those under a key already refused are not looked at).
    `warn=False` keeps quiet about globs that match nothing (for callers that reload the
    file on every use; the CLI and a first load say it once)."""
    path = Path(path)
    data = _read(path)
    problems: list[str] = []
    refused: set[str] = set()
    try:
        config: Config | None = Config.model_validate(data)
    except ValidationError as exc:
        problems = _error_lines(path, exc)
        refused = {str(e["loc"][0]) for e in exc.errors() if e["loc"]}
        config = _valid_part(data, refused)
    if config is None:
        raise ConfigError("\n".join(problems))
    config, path_problems = _absolute(config, path.resolve().parent, warn)
    problems += [p for p in path_problems if _top_key(p) not in refused]
    if problems:
        raise ConfigError("\n".join(problems))
    return config


def _valid_part(data: dict[str, Any], refused: set[str]) -> Config | None:
    """The config without the top-level keys pydantic refused, so that the paths of the rest
    are checked too (None if even that does not validate)."""
    try:
        return Config.model_validate({k: v for k, v in data.items() if k not in refused})
    except ValidationError:
        return None


def _top_key(line: str) -> str:
    return re.split(r"[.:\[]", line, maxsplit=1)[0]


def _absolute(config: Config, base: Path, warn: bool) -> tuple[Config, list[str]]:
    """Make paths absolute against the config file's folder and check them: the config, and a
    line for each path that fails its check."""
    problems: list[str] = []
    sources = {}
    for name in SourcesConfig.model_fields:
        source = getattr(config.sources, name)
        if source is None:
            continue
        paths = [_resolve(base, p) for p in source.paths]
        for i, p in enumerate(paths):
            _check_plain_path(problems, f"sources.{name}.paths[{i}]", p, warn)
        update: dict[str, object] = {"paths": paths}
        if isinstance(source, CloudMonitoringConfig) and source.inventory:
            update["inventory"] = _resolve(base, source.inventory)
            _check_plain_path(
                problems, f"sources.{name}.inventory", str(update["inventory"]), file=True
            )
        if isinstance(source, ManagedInferenceConfig):
            update.update(source.resolved(base, f"sources.{name}", problems))
        if isinstance(source, KubernetesConfig):
            for key in ("spool_dir", "kubeconfig"):
                if getattr(source, key):
                    update[key] = _resolve(base, os.path.expanduser(getattr(source, key)))
        sources[name] = source.model_copy(update=update)
    files = {}
    for key in ("budgets", "price_book", "fx_rates"):
        value = getattr(config, key)
        if value is not None:
            files[key] = _resolve(base, value)
            _check_plain_path(problems, key, files[key], file=True)
    warehouse = config.warehouse.model_copy(update={"path": _resolve(base, config.warehouse.path)})
    if warehouse.kind == "duckdb":
        _check(problems, "warehouse.path", warehouse.path, warehouse_file_problem)
    dagster_home = (
        _resolve(base, config.dagster_home)
        if config.dagster_home
        else str(Path(warehouse.path).parent / "dagster_home")
    )
    if config.dagster_home or warehouse.kind != "duckdb":  # else beside the warehouse: checked
        _check(problems, "dagster_home", dagster_home, folder_problem)
    absolute = config.model_copy(
        update={
            **files,
            "warehouse": warehouse,
            "dagster_home": dagster_home,
            "month_report": config.month_report.model_copy(
                update={"out": _resolve(base, config.month_report.out)}
            ),
            "sources": config.sources.model_copy(update=sources),
            "base_dir": str(base),
        }
    )
    return absolute, problems
