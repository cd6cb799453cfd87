from dashboards.sidebar import current
from dashboards.views import commitment_plan, commitments

commitments.render(current())
commitment_plan.render()
