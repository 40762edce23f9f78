"""Zero to JupyterHub's values for a class (``deploy/z2jh/values.yaml``), from the same measurements as the local hub.

``python deploy/sizing.py --write`` writes the file; ``tests/class/test_z2jh_values.py`` validates it against the
chart's published values schema. What it sets:

- the students' image, built from the learner's runtime environment by ``deploy/Dockerfile``;
- per-student memory and CPU guarantee and limit (:mod:`sizing`), which Kubernetes enforces with the container's
  cgroup: a kernel that allocates past the limit is OOM-killed, and the notebook shows "kernel restarting";
- the idle culler (the chart's ``cull``: servers idle for ``CULL_TIMEOUT`` seconds are stopped);
- the copy of the learner's edition at start: a ``postStart`` hook runs ``deploy/learner_copies.py`` in the home.

>>> import sizing, yaml
>>> values = yaml.safe_load(values_yaml(sizing.Sizing.measured()))
>>> values["singleuser"]["memory"]["limit"].endswith("M")
True
"""
import yaml

IMAGE = "registry.example.org/autograd-memory-lab"   # where `docker build -f deploy/Dockerfile` pushed the image
IMAGE_TAG = "latest"
COURSE = "/srv/course"                              # the Dockerfile's copy of the course
CULL_TIMEOUT = 3600                                 # seconds idle before a server is stopped
CULL_EVERY = 600
HEADER = """\
# Zero to JupyterHub values for a class of the Autograd Memory Lab: written by `python deploy/sizing.py --write`
# from data/notebooks_cpu.json (do not edit by hand; deploy/README.md says how to use it).
#   helm upgrade --install amlab jupyterhub --repo https://hub.jupyter.org/helm-chart/ \\
#     --namespace amlab --create-namespace --values deploy/z2jh/values.yaml --values my-secrets.yaml
# my-secrets.yaml holds what is yours: the image's registry and tag, and a real authenticator
# (hub.config.JupyterHub.authenticator_class and its settings). The one here is for a trial only.
"""


def mebibytes(n):
    """Kubernetes' quantity for ``n`` bytes, in whole MiB ("M" in the chart's units is 2**20 bytes for KubeSpawner).

    >>> mebibytes(2**30)
    '1024M'
    """
    return f"{n // 2**20}M"


def values(sizing):
    """The values as a dict."""
    return {
        "hub": {
            "config": {
                "JupyterHub": {"authenticator_class": "shared-password"},
                "SharedPasswordAuthenticator": {"user_password": "change-me-not-for-production"},
                "Authenticator": {"allow_all": True},
            },
        },
        "singleuser": {
            "image": {"name": IMAGE, "tag": IMAGE_TAG},
            "memory": {"guarantee": mebibytes(sizing.memory_guarantee), "limit": mebibytes(sizing.memory_limit)},
            "cpu": {"guarantee": sizing.cpu_guarantee, "limit": sizing.cpu_limit},
            "defaultUrl": "/lab/tree/my_notebooks/00_start_here.ipynb",
            "lifecycleHooks": {"postStart": {"exec": {"command": [
                "python", f"{COURSE}/deploy/learner_copies.py", "/home/jovyan"]}}},
        },
        "cull": {"enabled": True, "timeout": CULL_TIMEOUT, "every": CULL_EVERY},
    }


def values_yaml(sizing):
    """The values file's text."""
    return HEADER + yaml.safe_dump(values(sizing), sort_keys=False, default_flow_style=False)
