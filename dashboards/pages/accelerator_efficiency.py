from dashboards.sidebar import current
from dashboards.views import efficiency

efficiency.render(current())
