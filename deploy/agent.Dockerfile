# The NVML agent's image: Python, the agent's locked dependencies, its own modules; no JAX,
# Dagster or Streamlit (~230 MB installed, most of it pyarrow). Build from the repository root:
#   docker build -f deploy/agent.Dockerfile -t REGISTRY/flopledger-agent:0.1.0 .
# The install step is deploy/agent/install.sh, which the tests run in a clean environment.
# Bases pinned by tag; pin them by digest too where your registry policy asks
# (docker buildx imagetools inspect python:3.11.14-slim-bookworm).
FROM ghcr.io/astral-sh/uv:0.13.8 AS uv

FROM python:3.11.14-slim-bookworm
COPY --from=uv /uv /usr/local/bin/uv
ENV UV_NO_CACHE=1 UV_LINK_MODE=copy UV_PYTHON_DOWNLOADS=never \
    PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/agent/bin:$PATH
RUN uv venv --python /usr/local/bin/python3.11 /opt/agent
# Dependencies first (a layer that changes only with requirements.txt), then the code.
COPY deploy/agent/requirements.txt deploy/agent/install.sh /src/deploy/agent/
COPY deploy/agent/pyproject.toml /src/deploy/agent/
COPY flopledger/__init__.py /src/flopledger/
COPY accelerators/ /src/accelerators/
COPY settings/ /src/settings/
COPY paths/ /src/paths/
COPY cli/__init__.py cli/main.py /src/cli/
COPY cli/commands/agent.py /src/cli/commands/
COPY clients/__init__.py clients/network.py /src/clients/
COPY collectors/__init__.py collectors/gcs.py /src/collectors/
COPY collectors/nvml/ /src/collectors/nvml/
RUN sh /src/deploy/agent/install.sh /opt/agent/bin/python /src && rm -rf /src
# Non-root by default (a VM with `docker run --gpus all` needs nothing more). The Kubernetes
# DaemonSet runs it as root (deploy/k8s/agent.yaml says why: the kubelet's pod-resources
# socket is root's, and reading GPUs no pod gave it needs a privileged container).
RUN useradd --system --uid 65532 --home-dir /var/lib/flopledger --create-home flopledger
USER 65532:65532
ENV LD_LIBRARY_PATH=/usr/local/nvidia/lib64
EXPOSE 9464
ENTRYPOINT ["flopledger", "agent"]
CMD ["--spool", "/var/lib/flopledger/spool", "--health", ":9464"]
