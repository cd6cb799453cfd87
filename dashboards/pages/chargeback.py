from dashboards.sidebar import current
from dashboards.views import chargeback

chargeback.render(current())
