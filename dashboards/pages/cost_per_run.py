from flopledger.dashboards.sidebar import current
from flopledger.dashboards.views import runs

runs.render(current())
