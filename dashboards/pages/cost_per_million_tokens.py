from flopledger.dashboards.sidebar import current
from flopledger.dashboards.views import managed_inference, tokens

filters = current()
tokens.render(filters)
managed_inference.render(filters)
