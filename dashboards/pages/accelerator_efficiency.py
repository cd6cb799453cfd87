from flopledger.dashboards.sidebar import current
from flopledger.dashboards.views import efficiency

efficiency.render(current())
