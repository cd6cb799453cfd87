from dashboards.sidebar import current
from dashboards.views import idle

idle.render(current())
