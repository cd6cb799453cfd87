from dashboards.sidebar import current
from dashboards.views import explorer

explorer.render(current())
