"""`python -m flopledger.figures > docs/glossary.md`: the glossary, from the figures table."""

from flopledger.figures import glossary_markdown

print(glossary_markdown(), end="")
