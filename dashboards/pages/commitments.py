from flopledger.dashboards.sidebar import current
from flopledger.dashboards.views import commitment_plan, commitments

commitments.render(current())
commitment_plan.render()
