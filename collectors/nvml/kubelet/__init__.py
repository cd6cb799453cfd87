"""The kubelet's PodResources v1 gRPC API: the real proto and its generated stubs (README.md)."""
