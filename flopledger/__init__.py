"""flopledger: what AI accelerators cost, what sat idle, and what they deliver.

One import name for the whole project. The rooms (accelerators/, collectors/, pipelines/,
models/, dashboards/ ...) are folders at the repository's root, where the design puts them;
in a checkout this package reaches each through a link of the same name here, and the wheel
ships them inside it (pyproject.toml), so an installed flopledger adds one top-level name,
`flopledger`, to site-packages, never `models`, `settings` or `cli`.
"""
