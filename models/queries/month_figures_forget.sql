-- @query: Forgets the stored figures of some calendar months (bookkeeping.month_figures) before
--   month_figures_store stores them anew.
-- @param months: the months' first days (DATE[]).
DELETE FROM bookkeeping.month_figures WHERE list_contains(CAST($months AS DATE[]), month)
