from dashboards.sidebar import current
from dashboards.views import budgets

budgets.render(current())
