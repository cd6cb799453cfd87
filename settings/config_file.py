"""`flopledger.yaml`: the one configuration file.

Relative paths are relative to the config file. Unknown keys, wrong types and plain
paths that do not exist are refused with one line naming the key or path; a glob that
matches nothing is only a warning (that source then gives zero rows).
"""

from __future__ import annotations

import glob
import logging
import os
from datetime import date
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from flopledger.paths import is_glob

log = logging.getLogger(__name__)


class ConfigError(Exception):
    """A configuration problem, said in one line."""


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

    def resolved(self, base: Path, key: str) -> dict[str, object]:
        """The exports' and price book's paths made absolute (plain paths must exist)."""
        exports = []
        for i, export in enumerate(self.provider_exports):
            parts: dict[str, object] = {}
            for field in ("usage", "costs"):
                paths = [_resolve(base, p) for p in getattr(export, field)]
                for j, p in enumerate(paths):
                    _check_plain_path(f"{key}.provider_exports[{i}].{field}[{j}]", p, warn=False)
                parts[field] = paths
            exports.append(export.model_copy(update=parts))
        update: dict[str, object] = {"provider_exports": exports}
        if self.price_book:
            update["price_book"] = _resolve(base, self.price_book)
            _check_plain_path(f"{key}.price_book", str(update["price_book"]))
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

    billing: str = "0 5 * * *"
    telemetry: str = "15 * * * *"
    # The marts the samples feed are rebuilt after the telemetry ticks of the UTC hours this
    # divides (0, 6, 12 and 18 by default; 1: after every tick); the ticks between load the
    # samples only, and the next marts tick (or the daily run) takes them in.
    telemetry_marts_every_hours: int = Field(default=TELEMETRY_MARTS_EVERY_HOURS, ge=1, le=24)
    month_report: str = "0 7 * * *"  # daily: writes a closed month's report, or its revision


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


class AllocationConfig(_Strict):
    """run_label_key: the billing label naming a run. shared_cost_policy: how team_chargeback
    spreads what no run was allocated (unallocated idle and shared cost): none, proportional (to
    allocated cost), even, or fixed (by shared_cost_key, team -> positive integer weight)."""

    run_label_key: str = "run_id"
    shared_cost_policy: Literal["none", "proportional", "even", "fixed"] = "proportional"
    shared_cost_key: dict[str, int] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _key_fits_policy(self) -> AllocationConfig:
        if any(w <= 0 for w in self.shared_cost_key.values()):
            raise ValueError("allocation.shared_cost_key: every weight must be a positive integer")
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


def _check_plain_path(key: str, value: str, warn: bool = True) -> None:
    """A plain path must exist; a glob that matches nothing now is only a warning."""
    if value.startswith("gs://"):
        return
    if is_glob(value):
        if warn and not _matches_a_file(value):
            log.warning("%s: %s matches no file", key, value)
        return
    if not Path(value).exists():
        raise ConfigError(f"{key}: {value} does not exist")


def _error_line(path: Path, err: ValidationError) -> str:
    first = err.errors()[0]
    key = ".".join(str(part) for part in first["loc"]) or "(top level)"
    if first["type"] == "extra_forbidden":
        return f"{path}: {key}: unknown key"
    return f"{path}: {key}: {first['msg']} (got {first.get('input')!r})"


def load_config(path: str | Path, warn: bool = True) -> Config:
    """Read and validate `flopledger.yaml`; every relative path made absolute.

    `warn=False` keeps quiet about globs that match nothing (for callers that reload the
    file on every use; the CLI and a first load say it once)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: config file does not exist")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc.__class__.__name__})") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of keys at the top level")
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_error_line(path, exc)) from None
    return _absolute(config, path.resolve().parent, warn)


def _absolute(config: Config, base: Path, warn: bool) -> Config:
    """Make paths absolute against the config file's folder and check plain paths exist."""
    sources = {}
    for name in SourcesConfig.model_fields:
        source = getattr(config.sources, name)
        if source is None:
            continue
        paths = [_resolve(base, p) for p in source.paths]
        for i, p in enumerate(paths):
            _check_plain_path(f"sources.{name}.paths[{i}]", p, warn)
        update: dict[str, object] = {"paths": paths}
        if isinstance(source, CloudMonitoringConfig) and source.inventory:
            update["inventory"] = _resolve(base, source.inventory)
            _check_plain_path(f"sources.{name}.inventory", str(update["inventory"]))
        if isinstance(source, ManagedInferenceConfig):
            update.update(source.resolved(base, f"sources.{name}"))
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
            _check_plain_path(key, files[key])
    warehouse = config.warehouse.model_copy(update={"path": _resolve(base, config.warehouse.path)})
    dagster_home = (
        _resolve(base, config.dagster_home)
        if config.dagster_home
        else str(Path(warehouse.path).parent / "dagster_home")
    )
    return config.model_copy(
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
