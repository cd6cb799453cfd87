-- @query: Why a closed month changed after its report: each cause a run recorded
--   (closed_month_changes), with when it was first recorded, oldest first.
-- @param month: first day of the month.
SELECT cause, min(recorded_at) AS recorded_at
FROM closed_month_changes
WHERE month = $month
GROUP BY cause
ORDER BY 2, 1
