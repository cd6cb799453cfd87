"""One name and one definition for each figure flopledger shows (docs/glossary.md).

The CLI, every dashboard page, alerts and budgets print a figure under `Figure.name`, never
under a name of their own, and a page links its definition (`Figure.anchor`). docs/glossary.md
is written from this table (`python -m flopledger.figures > docs/glossary.md`); a test checks that
it is current.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Units: what a number counts. A fraction is 0 to 1 (pages show it as a percentage); a
# percentage is 0 to 100 as stored.
USD = "USD"
FRACTION = "a fraction (0 to 1)"
PERCENT = "a percentage (0 to 100)"
HOURS = "accelerator-hours"
COUNT = "a count"

# Rounding: the one rule each kind of figure is computed by, whoever shows it.
MONEY = (
    "DECIMAL(38, 9): exact sums of amounts held to the nano-dollar, never rounded (pages and "
    "the CLI show cents; CSV files every digit)."
)
PER_TOKENS = (
    "DECIMAL(38, 9), truncated: the cost in nano-dollars x 1,000,000 // tokens (integer "
    "division), so the rate is exact to the nano-dollar and never rounded up."
)
SHARE = (
    "DOUBLE: one division in SQL of the exact DECIMAL sums, each cast to DOUBLE; null when the "
    "denominator is 0 (pages and the CLI show 0.1%)."
)
HOUR_SUMS = (
    "DOUBLE sums of the daily roll-up (idle_capacity_daily), never of the hourly rows, so every "
    "caller adds the same numbers in the same grain."
)


@dataclass(frozen=True)
class Figure:
    key: str
    name: str
    definition: str
    source: str  # where the number comes from: the query that owns it, the tables it reads
    unit: str = ""  # empty for a dimension or a yes/no
    rounding: str = ""  # how it is computed and rounded: the one rule every caller keeps
    short: str = ""  # the heading of a narrow CLI column, where the name does not fit

    @property
    def anchor(self) -> str:
        """The heading's anchor in docs/glossary.md and on the dashboard's Glossary page."""
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


FIGURES: tuple[Figure, ...] = (
    Figure(
        "billed_cost",
        "Billed cost",
        "What the billing export charges before credits.",
        "query bill_totals (spend_daily.billed_cost: billing_line_items.cost_usd)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "credits",
        "Credits",
        "Discounts the export applies to rows (committed use, sustained use, promotions, ...); "
        "zero or negative.",
        "query bill_totals (spend_daily.credits_total)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "effective_cost",
        "Effective cost",
        "Billed cost + credits: what is actually paid. Every other money figure is a part of it.",
        "query bill_totals (spend_daily.effective_cost); the books' split: query bill_split "
        "(cost_explorer_rows)",
        unit=USD,
        rounding=MONEY + " The bill keeps a currency-converted FOCUS row's 12 places until the "
        "sum is cast; the books take each row to the nano-dollar (books_close says they agree).",
    ),
    Figure(
        "list_cost",
        "List cost",
        "What the usage would cost at list price, before discounts and credits: a run's share "
        "of its rows' list cost.",
        "cost_per_run.list_cost, spend_daily.list_cost",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "commitment_amortisation",
        "Commitment amortisation",
        "Effective cost - billed cost - credits: what a FOCUS provider's commitments move between "
        "the rows they are billed on and the rows they cover (a savings plan bought up front, "
        "its amortised share in the usage it paid for). Zero for Google's export.",
        "query bill_totals (spend_daily)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "invoiced_cost",
        "Invoiced cost",
        "Billed cost + credits as the invoice charges them, by invoice month: a FOCUS row's "
        "BilledCost, before the commitment amortisation that the effective cost includes.",
        "query month_report_invoice (spend_monthly.effective_cost)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "provider",
        "Provider",
        "The cloud that bills a cost: `gcp` for Google's billing export, and a FOCUS export's "
        "ProviderName as written (`AWS`, `Microsoft`, `Oracle` ...). Every provider's money is "
        "in the reporting currency (USD). A run's provider is that of the resources it held; "
        "idle capacity is its resources' provider. Pages show a provider filter, column or "
        "breakdown only when the warehouse holds more than one. Not a managed inference "
        "provider (an API a model is called through; the Portfolio and tokens pages).",
        "spend_daily.provider, idle_capacity.provider",
    ),
    Figure(
        "label_team",
        "Label team",
        "The `team` label on a billing row. Billing rows without one are __unallocated__. "
        "Budgets scope spend by the label team (they say so: 'label team=llm').",
        "spend_daily.team",
    ),
    Figure(
        "run_owner_team",
        "Run-owner team",
        "The team on a run's job record (the scheduler's). Runs without one: __unallocated__. "
        "Cost of runs and chargeback are by run-owner team.",
        "cost_per_run.team, team_chargeback.team",
    ),
    Figure(
        "spend_by_label_team",
        "Spend (label team)",
        "Effective cost of the billing rows whose team label is the team. Includes storage, "
        "network and idle capacity the team labelled; excludes unlabelled rows its runs used.",
        "spend_daily.effective_cost by team",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "spend_to_date",
        "Spend to date",
        "A budget's scope's spend from its period's first day to the as-of time: the effective "
        "cost of its billing rows by label team (a workload-class scope: the cost allocated to "
        "its runs).",
        "budget_status.spend_to_date (queries billing_spend_by_day, allocated_spend_by_day)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "forecast",
        "Forecast",
        "Spend on a period's complete days + the run rate (the mean daily spend over the last "
        "7 complete days before the as-of day, budgets.yaml's forecast_window_days) x the days "
        "left, never below the spend to date: a budget's over its period, the Overview's over "
        "the month of the range's last day (as of the day after it). A closed period's forecast "
        "is its spend.",
        "figures/forecast.py: budget_status.forecast; the Overview over spend_daily",
        unit=USD,
        rounding="The run rate rounded half-even to the nano-dollar; the rest exact DECIMAL.",
    ),
    Figure(
        "amount_usd",
        "Budget amount",
        "A budget's amount for a period, in USD (an amount in another currency at the period's "
        "first day's rate).",
        "budget_status.amount_usd",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "percent_used",
        "Percent used",
        "Spend to date / the budget amount x 100.",
        "budget_status.percent_used (budgets/status.py)",
        unit=PERCENT,
        rounding="DOUBLE of the exact DECIMAL ratio x 100 (pages and alerts show 0.1%).",
    ),
    Figure(
        "forecast_percent",
        "Forecast percent",
        "Forecast / the budget amount x 100.",
        "budget_status.forecast_percent (budgets/status.py)",
        unit=PERCENT,
        rounding="DOUBLE of the exact DECIMAL ratio x 100 (pages and alerts show 0.1%).",
    ),
    Figure(
        "change",
        "Change",
        "A money figure less the same figure in the period before: the explorer's previous "
        "period of the same length, the month report's month before.",
        "query explorer_compare (cost_explorer_rows); the month report (team_chargeback, "
        "cost_per_run)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "change_share",
        "Relative change",
        "Change / the figure in the period before; null when it was 0. Not the spend-change "
        "alert's rise, which is against a baseline of days and in percent.",
        "query explorer_compare (cost_explorer_rows)",
        unit=FRACTION,
        rounding=SHARE,
    ),
    Figure(
        "cumulative_effective_cost",
        "Cumulative effective cost",
        "Effective cost from the first day of the range to each day, in the explorer's filters.",
        "query explorer_cumulative (cost_explorer_rows)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "run_cost",
        "Cost of runs",
        "Effective cost allocated to runs: each resource-hour's cost shared by the accelerator-"
        "seconds runs held, plus rows labelled with a run. By run-owner team.",
        "cost_per_run.effective_cost",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "started_run_cost",
        "Cost of runs started",
        "The whole cost of the runs that started (else were submitted) on the days chosen, "
        "whenever their cost was incurred: what the runs, tokens and portfolio pages and the "
        "month report's experiments and models count. Over all of history it is the cost of "
        "runs; over some days it differs by the runs that straddle the range's ends.",
        "cost_per_run.effective_cost by run_day",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "cost_per_million_tokens",
        "Cost per million tokens",
        "The cost of the runs with tokens (in + out) / their tokens x 1,000,000, over the runs "
        "started on the days chosen (a run without tokens is in neither side); per run, its "
        "own cost and tokens.",
        "query cost_per_million_tokens_by (cost_per_run); cost_per_run.cost_per_million_tokens",
        unit=f"{USD} per million tokens",
        rounding=PER_TOKENS,
        short="per M tok",
    ),
    Figure(
        "cost_per_million_output_tokens",
        "Cost per million output tokens",
        "The cost of the runs with tokens / their output tokens x 1,000,000; null without "
        "output tokens.",
        "query cost_per_million_tokens_by (cost_per_run)",
        unit=f"{USD} per million output tokens",
        rounding=PER_TOKENS,
    ),
    Figure(
        "accelerator_cost",
        "Accelerator resource cost",
        "Effective cost of the resource-hours that paid for accelerators (the accelerators and "
        "their host: cores, RAM, disk). The denominator of the idle shares of cost.",
        "query idle_figures (idle_capacity_daily.effective_cost)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "unallocated_idle_cost",
        "Unallocated idle cost",
        "Accelerator resource cost no run held: paid for, idle, charged to nobody until "
        "chargeback spreads it. Excludes unused commitment and unused reservation (idle of "
        "their own kinds, below).",
        "query idle_figures (idle_capacity_daily.unallocated_idle_cost)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "unused_commitment_cost",
        "Unused commitment cost",
        "The part of a commitment's fee no usage took (committed, used by nobody): idle of its "
        "own kind, shown beside unallocated idle cost, never in shared cost, and in none of the "
        "idle shares. Chargeback spreads it like unallocated idle, in a column of its own.",
        "unused_capacity.unused_cost (idle_kind unused_commitment), "
        "team_chargeback.month_unused_commitment_cost",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "unused_reservation_cost",
        "Unused reservation cost",
        "Reserved capacity no VM consumed (billing rows the system label marks unused "
        "reservation), attributed to its reservation and project: idle of its own kind, shown "
        "beside unallocated idle cost, never in shared cost, and in none of the idle shares. "
        "Chargeback spreads it like unallocated idle, in a column of its own.",
        "unused_capacity.unused_cost (idle_kind unused_reservation), "
        "team_chargeback.month_unused_reservation_cost",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "allocated_idle_cost",
        "Allocated idle cost",
        "Cost allocated to runs for accelerator time they held but did not keep busy "
        "(needs telemetry; part of the cost of runs).",
        "query idle_figures (idle_capacity_daily.allocated_idle_cost)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "idle_cost",
        "Idle cost",
        "Unallocated idle cost + allocated idle cost.",
        "idle_capacity",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "unallocated_idle_share_of_cost",
        "Unallocated idle share of cost",
        "Unallocated idle cost / accelerator resource cost. Excludes unused commitment and "
        "unused reservation cost (neither is a resource-hour's cost).",
        "query idle_figures (idle_capacity_daily)",
        unit=FRACTION,
        rounding=SHARE,
    ),
    Figure(
        "idle_share_of_cost",
        "Idle share of cost",
        "Idle cost (unallocated + allocated idle) / accelerator resource cost. Excludes unused "
        "commitment and unused reservation cost. The idle_cost_share alert rule measures this, "
        "per project.",
        "query idle_figures (idle_capacity_daily)",
        unit=FRACTION,
        rounding=SHARE,
    ),
    Figure(
        "unallocated_idle_share_of_hours",
        "Unallocated idle share of hours",
        "Accelerator-hours paid and held by no run / accelerator-hours paid. Excludes unused "
        "commitment and unused reservation (not paid accelerator-hours of any resource).",
        "query idle_figures (idle_capacity_daily)",
        unit=FRACTION,
        rounding=SHARE,
    ),
    Figure(
        "paid_accelerator_hours",
        "Paid accelerator-hours",
        "Accelerator-seconds the bill says were paid for, / 3,600: what the idle shares of hours "
        "divide by.",
        "query idle_figures (idle_capacity_daily.paid_accelerator_hours)",
        unit=HOURS,
        rounding=HOUR_SUMS,
    ),
    Figure(
        "allocated_accelerator_hours",
        "Allocated accelerator-hours",
        "Paid accelerator-hours a run held.",
        "query idle_figures (idle_capacity_daily.allocated_accelerator_hours)",
        unit=HOURS,
        rounding=HOUR_SUMS,
    ),
    Figure(
        "busy_accelerator_hours",
        "Busy accelerator-hours",
        "Allocated accelerator-hours telemetry saw busy (needs telemetry).",
        "query idle_figures (idle_capacity_daily.busy_accelerator_hours)",
        unit=HOURS,
        rounding=HOUR_SUMS,
    ),
    Figure(
        "unallocated_idle_hours",
        "Unallocated idle hours",
        "Paid accelerator-hours no run held.",
        "query idle_figures (idle_capacity_daily.unallocated_idle_hours)",
        unit=HOURS,
        rounding=HOUR_SUMS,
    ),
    Figure(
        "shared_cost",
        "Shared cost",
        "Effective cost no run was allocated that is not unallocated idle, unused commitment or "
        "unused reservation: storage, network, tax, hosts without accelerators.",
        "team_chargeback.month_shared_cost",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "chargeback",
        "Chargeback",
        "What a run-owner team is charged in a month: the cost of its runs + its parts of the "
        "unallocated idle, unused commitment and unused reservation cost (each shown apart) + "
        "its part of the shared cost, under the configured policy "
        "(allocation.shared_cost_policy: none, proportional to the cost of runs, even, or a "
        "fixed key). The teams' chargeback adds up to the effective cost exactly.",
        "team_chargeback.total_cost",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "books_close",
        "Books close",
        "Cost of runs + unallocated idle cost + unused commitment cost + unused reservation cost "
        "+ shared cost = effective cost, to the nano-dollar.",
        "books",
    ),
    Figure(
        "pricing_model",
        "Pricing model",
        "on_demand, spot (Spot / Preemptible SKUs), commitment (Commitment SKUs), reserved "
        "(Reserved / Reservation SKUs) or dws (Dynamic Workload Scheduler SKUs), read from the "
        "billing row's SKU (collectors/sku_rules.csv); a FOCUS row's PricingCategory. "
        "Committed-use discounts on on-demand rows show as a credit type.",
        "cost_explorer_rows.pricing_model",
    ),
    Figure(
        "commitment_fee",
        "Commitment fee",
        "What a commitment (Commitment v1: SKUs) charges for its committed accelerators, used or "
        "not.",
        "query commitment_totals (commitment_utilisation.fee)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "commitment_savings",
        "Commitment savings",
        "What the committed-use credits took off on-demand prices, before the fee.",
        "query commitment_totals (commitment_utilisation.savings)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "commitment_net_savings",
        "Commitment savings net of the fee",
        "Commitment savings - commitment fee: negative when the commitment costs more than it "
        "saves.",
        "query commitment_totals (commitment_utilisation.net_savings)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "commitment_utilisation",
        "Commitment utilisation",
        "Committed accelerator-hours used by usage that got the commitment's credit / committed "
        "accelerator-hours (a ratio of the sums, never a mean of days). Not self-hosted "
        "utilisation.",
        "query commitment_totals (commitment_utilisation)",
        unit=FRACTION,
        rounding=SHARE,
    ),
    Figure(
        "recommended_accelerators",
        "Accelerators to commit to",
        "The whole number of accelerators L that minimises L x the committed price + what demand above L costs on demand, over every hour of the plan's window (demand = paid + queued accelerator-hours).",
        "query commitment_plan_rows (commitment_plan.recommended_accelerators)",
        unit=COUNT,
        rounding="Whole accelerators.",
    ),
    Figure(
        "recommended_cost",
        "Cost of the plan",
        "The window's demand with the plan's commitment: L x the committed price + the demand above L on demand.",
        "query commitment_plan_rows (commitment_plan.recommended_cost)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "on_demand_cost",
        "Cost all on demand",
        "The window's demand at the on-demand price.",
        "query commitment_plan_rows (commitment_plan.on_demand_cost)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "current_cost",
        "Cost with today's commitments",
        "The window's demand with the accelerators committed today, at the term's price.",
        "query commitment_plan_rows (commitment_plan.current_cost)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "recommended_savings_vs_on_demand",
        "Plan savings against on demand",
        "Cost all on demand - cost of the plan.",
        "query commitment_plan_rows (commitment_plan.recommended_savings_vs_on_demand)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "recommended_savings_vs_current",
        "Plan savings against today",
        "Cost with today's commitments - cost of the plan.",
        "query commitment_plan_rows (commitment_plan.recommended_savings_vs_current)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "demand_fall_accelerators",
        "Accelerators to commit to if demand falls 20%",
        "The plan over 80% of each hour's demand.",
        "query commitment_plan_rows (commitment_plan.demand_fall_accelerators)",
        unit=COUNT,
        rounding="Whole accelerators.",
    ),
    Figure(
        "demand_fall_savings_vs_on_demand",
        "Plan savings if demand falls 20%",
        "Cost all on demand - cost of that plan, both over 80% of the demand.",
        "query commitment_plan_rows (commitment_plan.demand_fall_savings_vs_on_demand)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "without_failed_accelerators",
        "Accelerators to commit to without failed runs",
        "The plan over the demand less failed runs' accelerator-hours.",
        "query commitment_plan_rows (commitment_plan.without_failed_accelerators)",
        unit=COUNT,
        rounding="Whole accelerators.",
    ),
    Figure(
        "without_failed_savings_vs_on_demand",
        "Plan savings without failed runs",
        "Cost all on demand - cost of that plan, both without failed runs' demand.",
        "query commitment_plan_rows (commitment_plan.without_failed_savings_vs_on_demand)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "busy_share",
        "Busy share of held hours",
        "Busy accelerator-hours / allocated accelerator-hours of the type and region over the window (telemetry).",
        "query commitment_plan_rows (commitment_plan.busy_share)",
        unit=FRACTION,
        rounding=SHARE,
    ),
    Figure(
        "idle_committed_accelerators",
        "Planned accelerators allocated but idle",
        "Accelerators the plan commits to that telemetry shows held but not busy: the plan on busy demand is this many fewer.",
        "query commitment_plan_rows (commitment_plan.idle_committed_accelerators)",
        unit=COUNT,
        rounding="Whole accelerators.",
    ),
    Figure(
        "break_even_utilisation",
        "Break-even utilisation (commitment)",
        "The committed price / the on-demand price: commit to one more accelerator only while more than this share of the window's hours need it. Not self-hosting's break-even utilisation.",
        "query commitment_plan_rows (commitment_plan.break_even_utilisation)",
        unit=FRACTION,
        rounding="DECIMAL(12, 6), as the price book's two prices give it.",
        short="break-even utilisation",
    ),
    Figure(
        "managed_spend",
        "Managed spend",
        "What requests to managed inference providers cost (gateway logs and the providers' "
        "exports, priced by the price book where the gateway did not): not part of the cloud "
        "bill, so in no other money figure.",
        "query managed_spend (managed_inference_daily.cost)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "managed_cost_per_million_tokens",
        "Managed cost per million tokens",
        "Managed spend / the managed requests' tokens (input + output) x 1,000,000.",
        "query managed_spend (managed_inference_daily)",
        unit=f"{USD} per million tokens",
        rounding=PER_TOKENS,
    ),
    Figure(
        "managed_cost_per_million_output_tokens",
        "Managed cost per million output tokens",
        "Managed spend / the managed requests' output tokens x 1,000,000; null without output "
        "tokens.",
        "query managed_spend (managed_inference_daily)",
        unit=f"{USD} per million output tokens",
        rounding=PER_TOKENS,
    ),
    Figure(
        "managed_error_rate",
        "Managed error rate",
        "Failed managed requests / managed requests (gateway logs; providers' exports count no "
        "failures).",
        "query managed_spend (managed_inference_daily)",
        unit=FRACTION,
        rounding=SHARE,
    ),
    Figure(
        "self_hosted_cost_per_million_tokens",
        "Self-hosted cost per million tokens",
        "The effective cost of the self-hosted inference runs (online and batch) of a model, on "
        "the days a provider prices it, / their tokens (in + out) x 1,000,000.",
        "query self_hosted_vs_managed (inference_comparison)",
        unit=f"{USD} per million tokens",
        rounding=PER_TOKENS,
        short="self-hosted",
    ),
    Figure(
        "provider_cost_same_mix",
        "Provider cost for the same mix",
        "What the cheapest provider of a model would charge, at its price-book prices, for the "
        "tokens the self-hosted runs read and wrote (input and output priced apart), each day "
        "floored to the nano-dollar.",
        "query self_hosted_vs_managed (inference_comparison.provider_cost_same_mix)",
        unit=USD,
        rounding=MONEY,
    ),
    Figure(
        "provider_cost_per_million_tokens",
        "Provider cost per million tokens",
        "Provider cost for the same mix / the self-hosted tokens (in + out) x 1,000,000: the "
        "managed price of the self-hosted runs' work, for comparing with the self-hosted cost "
        "per million tokens.",
        "query self_hosted_vs_managed (inference_comparison)",
        unit=f"{USD} per million tokens",
        rounding=PER_TOKENS,
        short="provider",
    ),
    Figure(
        "self_hosted_utilisation",
        "Self-hosted utilisation",
        "1 - (allocated idle cost / effective cost) of the self-hosted inference runs of a "
        "model: the busy share of what they paid for. Null while a run has no telemetry. Not "
        "commitment utilisation.",
        "query self_hosted_vs_managed (inference_comparison)",
        unit=FRACTION,
        rounding=SHARE,
        short="util now",
    ),
    Figure(
        "self_hosting_break_even_utilisation",
        "Break-even utilisation (self-hosting)",
        "The self-hosted utilisation at which self-hosting a model costs what its cheapest "
        "provider charges for the same tokens: (effective cost - allocated idle cost) / provider "
        "cost for the same mix. Above it self-hosting is cheaper; above 1 it cannot win at any "
        "utilisation. Not the commitment plan's break-even utilisation.",
        "query self_hosted_vs_managed (inference_comparison)",
        unit=FRACTION,
        rounding=SHARE,
        short="break-even",
    ),
    Figure(
        "busy_pct",
        "Busy share",
        "Busy accelerator-hours / the accelerator-hours held by a family's runs with telemetry "
        "in a month, x 100.",
        "query portfolio (accelerator_portfolio.busy_pct)",
        unit=PERCENT,
        rounding="DOUBLE, as accelerator_portfolio computes it.",
        short="busy",
    ),
    Figure(
        "effective_cost_per_accelerator_hour",
        "Effective cost per accelerator-hour",
        "The cost of a family's runs in a month / their paid accelerator-hours.",
        "query portfolio (accelerator_portfolio)",
        unit=f"{USD} per accelerator-hour",
        rounding="DECIMAL(38, 9): the cost / the hours (a DOUBLE division) cast to 9 places, as "
        "accelerator_portfolio computes it.",
    ),
    Figure(
        "allocated_idle_share_of_run_cost",
        "Allocated idle share of the cost of runs",
        "Allocated idle cost / the cost of the family's runs: what they paid for accelerators "
        "they held but did not keep busy. Not an idle share of cost (those divide by the "
        "accelerator resource cost).",
        "query portfolio (accelerator_portfolio.allocated_idle_share)",
        unit=FRACTION,
        rounding="DOUBLE, as accelerator_portfolio computes it.",
    ),
    Figure(
        "family_unallocated_idle_share_of_cost",
        "Family's unallocated idle share of cost",
        "The unallocated idle share of cost of every resource of the family in the month: the "
        "idle capacity no run held, beside what its runs cost.",
        "query portfolio (accelerator_portfolio.unallocated_idle_share)",
        unit=FRACTION,
        rounding="DOUBLE, as accelerator_portfolio computes it.",
    ),
    Figure(
        "cost_per_delivered_pflop_hour",
        "Cost per delivered PFLOP-hour",
        "The cost of a family's runs / (their busy accelerator-hours x the family's best "
        "probe-measured bf16 TFLOP/s / 1000); null where no probe measured the family or "
        "telemetry is missing.",
        "query portfolio (accelerator_portfolio.cost_per_delivered_pflop_hour)",
        unit=f"{USD} per PFLOP-hour",
        rounding="DECIMAL(38, 9), truncated, as accelerator_portfolio computes it.",
        short="per PFLOP-h",
    ),
    Figure(
        "mean_mfu_measured_pct",
        "Mean MFU (measured peak)",
        "The MFU of a family's runs against the probe-measured peak, weighted by their "
        "accelerator-hours.",
        "query portfolio (accelerator_portfolio.mean_mfu_measured_pct)",
        unit=PERCENT,
        rounding="DOUBLE, as accelerator_portfolio computes it.",
    ),
    Figure(
        "times_cheapest",
        "Times the cheapest",
        "A family's cost per million tokens / the cheapest family's in the same workload class "
        "and month (1 on the cheapest).",
        "query portfolio (accelerator_portfolio); model_portfolio.times_cheapest",
        unit="a ratio",
        rounding="DOUBLE: one division of the two rates in nano-dollars.",
    ),
    Figure(
        "mean_utilisation_pct",
        "Mean utilisation",
        "A run's busy / held accelerator-hours over the hours with telemetry, x 100; over several "
        "runs, weighted by their accelerator-hours, over the runs with telemetry. The "
        "mean-utilisation alert rule measures it per run-owner team.",
        "cost_per_run.mean_utilisation_pct; query run_totals",
        unit=PERCENT,
        rounding="DOUBLE: one division of the hour-weighted sums.",
    ),
    Figure(
        "energy_kwh",
        "Energy",
        "The GPU energy a run's accelerators drew while it held them (NVML), its cost share of "
        "each node-hour's energy.",
        "cost_per_run.energy_kwh",
        unit="kWh",
        rounding="DOUBLE, as cost_per_run computes it.",
    ),
    Figure(
        "queue_seconds",
        "Queue time",
        "How long a run waited between its submission and its start.",
        "cost_per_run.queue_seconds",
        unit="seconds",
        rounding="DOUBLE, as cost_per_run computes it (pages show it as a duration).",
    ),
    Figure(
        "mfu",
        "MFU",
        "Model FLOPs utilisation: model FLOPs / (accelerator-seconds held x peak FLOP/s). "
        "Null for a run without tokens.",
        "run_mfu.mfu_spec_pct",
        unit=PERCENT,
        rounding="DOUBLE, as run_mfu computes it per run.",
    ),
)

BY_KEY = {f.key: f for f in FIGURES}


def figure(key: str) -> Figure:
    return BY_KEY[key]


def glossary_markdown() -> str:
    lines = [
        "# Glossary",
        "",
        "One name and one definition per figure. The CLI, the dashboards, alerts and budgets use",
        "these names; the dashboards link here. Generated from `figures/__init__.py`",
        "(`python -m flopledger.figures > docs/glossary.md`).",
        "",
    ]
    for f in FIGURES:
        lines += [f"## {f.name}", "", f.definition, "", f"Source: `{f.source}`."]
        if f.unit:
            lines += ["", f"Unit: {f.unit}. Rounding: {f.rounding}"]
        lines.append("")
    return "\n".join(lines)
