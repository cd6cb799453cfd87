from flopledger.dashboards.views import glossary

glossary.render()
