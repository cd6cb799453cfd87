from dashboards.sidebar import current
from dashboards.views import tokens

tokens.render(current())
