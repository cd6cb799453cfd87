-- @table: One accelerator type, region and commitment term: how many accelerators to commit to next, from the last commitment_plan_days days of hourly demand (commitment_demand_hourly: paid + queued accelerator-hours), priced by the accelerator price book; its cost and savings, the break-even utilisation, the plan if demand fell 20% and if failed runs' hours were not spent, and the busy check. Written by the commitment_plan asset through planning/commitment_planner.py (docs/commitments.md). USD.
CREATE TABLE IF NOT EXISTS commitment_plan (
    accelerator_type VARCHAR NOT NULL,                    -- Canonical accelerator type.
    region VARCHAR NOT NULL,                              -- Region ('unknown' where the bill did not say).
    term VARCHAR NOT NULL,                                -- 1y or 3y: which committed price the plan uses.
    days INTEGER NOT NULL,                                -- The window asked for, in days (ends at the fleet's last hour).
    first_hour TIMESTAMP NOT NULL,                        -- First UTC hour of the window with data.
    last_hour TIMESTAMP NOT NULL,                         -- Last UTC hour of the window.
    hours INTEGER NOT NULL,                               -- Hours in the window (N; zero-demand hours count).
    paid_accelerator_hours DOUBLE NOT NULL,               -- Paid accelerator-hours in the window (idle_capacity's).
    queued_accelerator_hours DOUBLE NOT NULL,             -- Accelerator-hours runs waited for in the queue (commitment_demand_hourly's queued hours: queue_seconds x accelerators for runs that started; runs that never started until they ended, else to the end of the span).
    failed_accelerator_hours DOUBLE NOT NULL,             -- Paid accelerator-hours held by runs that failed.
    peak_demand_accelerators DOUBLE NOT NULL,             -- The highest hourly demand, accelerators.
    on_demand_per_hour DECIMAL(38, 12),                   -- Price book: on-demand price per accelerator-hour (USD); null: no price.
    committed_per_hour DECIMAL(38, 12),                   -- Price book: committed price per accelerator-hour for the term (USD).
    price_as_of DATE,                                     -- Date of the price-book row.
    price_source VARCHAR,                                 -- Where the price-book row's prices come from.
    break_even_utilisation DECIMAL(12, 6),                -- committed / on-demand price: a committed accelerator pays for itself when used at least this share of the hours.
    committed_now DECIMAL(38, 9) NOT NULL,                -- Accelerators committed today (commitment_hourly's last hour; 0: none).
    recommended_accelerators INTEGER,                     -- L: the whole number of accelerators that minimises cost(L) = sum_h [L x committed + max(0, d_h - L) x on-demand] (smallest of a tie).
    recommended_cost DECIMAL(38, 9),                      -- cost(L) over the window (USD).
    recommended_savings_vs_on_demand DECIMAL(38, 9),      -- cost(0) - cost(L) (USD): against buying every hour on demand.
    recommended_savings_vs_current DECIMAL(38, 9),        -- cost(committed_now) - cost(L) (USD): against today's commitments at the term's price.
    on_demand_cost DECIMAL(38, 9),                        -- cost(0): the window's demand all on demand (USD).
    current_cost DECIMAL(38, 9),                          -- cost(committed_now) (USD).
    commitment_utilisation DECIMAL(12, 6),                -- Share of the L committed accelerator-hours demand would use (null when L = 0).
    hours_above_share DECIMAL(12, 6),                     -- Share of the hours whose demand exceeds L.
    demand_fall_accelerators INTEGER,                     -- L if every hour's demand were 20% lower.
    demand_fall_cost DECIMAL(38, 9),                      -- Its cost (USD).
    demand_fall_savings_vs_on_demand DECIMAL(38, 9),      -- Against all on demand at the lower demand (USD).
    demand_fall_savings_vs_current DECIMAL(38, 9),        -- Against today's commitments at the lower demand (USD).
    without_failed_accelerators INTEGER,                  -- L if the accelerator-hours failed runs held had not been spent.
    without_failed_cost DECIMAL(38, 9),                   -- Its cost (USD).
    without_failed_savings_vs_on_demand DECIMAL(38, 9),   -- Against all on demand without those hours (USD).
    without_failed_savings_vs_current DECIMAL(38, 9),     -- Against today's commitments without those hours (USD).
    busy_share DOUBLE,                                    -- Busy / allocated accelerator-hours where telemetry covered them (null: none).
    busy_accelerators INTEGER,                            -- L for demand less its allocated-but-idle accelerator-hours (null without telemetry).
    idle_committed_accelerators INTEGER,                  -- recommended - busy accelerators when positive: planned capacity that would sit allocated but idle (flagged).
    flag VARCHAR                                          -- Why to look twice: no price in the book, no telemetry, or committed capacity that would sit allocated but idle; null: none.
);
