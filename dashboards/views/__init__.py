"""One view module per page: `render(filters)` draws the page from named queries."""
