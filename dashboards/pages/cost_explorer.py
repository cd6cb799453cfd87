from flopledger.dashboards.sidebar import current
from flopledger.dashboards.views import explorer

explorer.render(current())
