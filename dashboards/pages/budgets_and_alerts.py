from flopledger.dashboards.sidebar import current
from flopledger.dashboards.views import budgets

budgets.render(current())
