from flopledger.dashboards.sidebar import current
from flopledger.dashboards.views import chargeback

chargeback.render(current())
