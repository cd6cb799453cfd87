-- @query: One row per UTC day of focus_line_items: its rows and billed cost, so a run can tell
--   which days its FOCUS files hold differently (a restated month, late rows).
SELECT charge_day AS day, count(*) AS n,
       CAST(coalesce(sum(billed_cost), 0) AS DECIMAL(38, 12)) AS amount
FROM focus_line_items
GROUP BY ALL
