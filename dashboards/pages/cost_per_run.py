from dashboards.sidebar import current
from dashboards.views import runs

runs.render(current())
