from dashboards.sidebar import current
from dashboards.views import overview

overview.render(current())
