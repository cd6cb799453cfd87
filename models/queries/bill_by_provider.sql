-- @query: The bill per provider (gcp for Google's export, FOCUS ProviderName as written): rows, billed and effective cost (USD; each FOCUS row to the nano-dollar, as the books take it), by provider name.
WITH bill AS (
    SELECT provider, cost_usd AS billed, cost_usd + credits_total_usd AS effective
    FROM billing_line_items
    UNION ALL
    SELECT provider_name, from_nanos(to_nanos(billed_cost)), from_nanos(to_nanos(coalesce(effective_cost, billed_cost)))
    FROM focus_line_items
)
SELECT provider, count(*) AS rows_, sum(billed) AS billed, sum(effective) AS effective
FROM bill
GROUP BY provider
ORDER BY provider
