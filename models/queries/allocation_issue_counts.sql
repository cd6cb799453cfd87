-- @query: One kind of allocation issue with how many there are, by kind.
SELECT kind, count(*) AS n FROM allocation_issues GROUP BY kind ORDER BY kind
