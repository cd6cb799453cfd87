-- @query: One kind of allocation issue (allocation_issues.kind, in words) with how many there
--   are. None: nothing to report.
-- @row: {n} {kind}
SELECT replace(k, '_', ' ') AS kind, n
FROM (SELECT kind AS k, count(*) AS n FROM allocation_issues GROUP BY kind) AS kinds
ORDER BY k
