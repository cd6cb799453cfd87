from dashboards.sidebar import current
from dashboards.views import portfolio

portfolio.render(current())
