from dashboards.sidebar import current
from dashboards.views import managed_inference, tokens

filters = current()
tokens.render(filters)
managed_inference.render(filters)
