from flopledger.dashboards.sidebar import current
from flopledger.dashboards.views import portfolio

portfolio.render(current())
