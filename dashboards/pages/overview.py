from flopledger.dashboards.sidebar import current
from flopledger.dashboards.views import overview

overview.render(current())
