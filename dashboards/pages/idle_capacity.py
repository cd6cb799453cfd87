from flopledger.dashboards.sidebar import current
from flopledger.dashboards.views import idle

idle.render(current())
