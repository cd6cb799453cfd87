-- @query: Spend per UTC day, provider and category (provider, team and project filters apply).
SELECT
    s.day,
    s.provider,
    s.category,
    sum(s.effective_cost) AS effective_cost
FROM spend_in_filters AS s
GROUP BY s.day, s.provider, s.category
ORDER BY s.day, s.provider, s.category
