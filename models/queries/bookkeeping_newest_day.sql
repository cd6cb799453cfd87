-- @query: The newest UTC day any write has recorded as changed (NULL: nothing loaded yet): the
--   day whose month is the open month, from which a settings change takes effect.
SELECT max(day) AS newest_day FROM bookkeeping.changes
