-- @query: One row: what an in-place read of the billing export found (its rows normalised
--   where they lie into `billing_export_normalised`, billing_export_normalised.sql in this folder),
--   counted before any is inserted: every row read, the plain ones (written by SQL), those of
--   them in the run's days, and how many distinct row ids of those are not in billing_line_items
--   yet (the rows the insert takes). The rest are handed to the per-row normaliser.
-- @param first_day: the run's first usage day (0001-01-01: every day)
-- @param last_day: the run's last usage day (9999-12-31: every day)
SELECT
    count(*) AS rows_read,
    coalesce(sum(CASE WHEN plain THEN 1 ELSE 0 END), 0) AS rows_plain,
    coalesce(sum(CASE WHEN plain AND usage_day BETWEEN $first_day AND $last_day THEN 1 ELSE 0 END), 0)
        AS rows_plain_in_window,
    count(DISTINCT CASE WHEN plain AND usage_day BETWEEN $first_day AND $last_day
        AND row_id NOT IN (SELECT row_id FROM billing_line_items) THEN row_id END) AS rows_new
FROM billing_export_normalised
