#!/bin/sh
# The agent's install step, as the image runs it (deploy/agent.Dockerfile) and as
# tests/deploy/test_agent_slim_install.py runs it in a clean virtual environment:
#   install.sh PYTHON SOURCE
# PYTHON: the target environment's interpreter; SOURCE: the repository root.
# 1) the locked, hash-checked dependencies; 2) the agent's own modules, nothing more.
set -eu
python="$1"
source="$2"
uv pip install --python "$python" --require-hashes --no-deps \
    -r "$source/deploy/agent/requirements.txt"
uv pip install --python "$python" --no-deps "$source/deploy/agent"
