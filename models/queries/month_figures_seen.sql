-- @query: The watched figures of some calendar months as the last marts run stored them
--   (bookkeeping.month_figures): what a run compares its rebuilt months against.
-- @param months: the months' first days (DATE[]).
SELECT month, figure, value
FROM bookkeeping.month_figures
WHERE list_contains(CAST($months AS DATE[]), month)
