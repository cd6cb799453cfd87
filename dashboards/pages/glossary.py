from dashboards.views import glossary

glossary.render()
