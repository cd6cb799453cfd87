from dashboards.sidebar import current
from dashboards.views import commitments

commitments.render(current())
