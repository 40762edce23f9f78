"""Zero to JupyterHub's values for a class (``deploy/z2jh/values.yaml``), from the same measurements as the local hub.

``python -m deploy.sizing --write`` writes the file; ``tests/test_class_files.py`` validates it against the
chart's published values schema. What it sets:

- the students' image, built from the learner's runtime environment by ``deploy/Dockerfile``;
- per-student memory and CPU guarantee and limit (:mod:`sizing`), which Kubernetes enforces with the container's
  cgroup: a kernel that allocates past the limit is OOM-killed, and the notebook shows "kernel restarting";
- the idle culler (the chart's ``cull``: servers idle for ``CULL_TIMEOUT`` seconds are stopped), and idle kernels
  shut down by each server (``KERNEL_CULL``, jupyter-server's ``MappingKernelManager``, in ``singleuser.extraFiles``);
- the copy of the learner's edition at start: a ``postStart`` hook runs ``python -m deploy.learner_copies`` in the home.

>>> import yaml
>>> from deploy import sizing
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
# A student's server shuts down kernels idle this long (jupyter-server's MappingKernelManager), tab open or not: the
# memory a student holds is their server and the kernels they are using, not every notebook they ever opened.
KERNEL_CULL = {"cull_idle_timeout": 1800, "cull_interval": 300, "cull_connected": True, "cull_busy": False}
HEADER = """\
# Zero to JupyterHub values for a class of the Autograd Memory Lab: written by `python -m deploy.sizing --write`
# from data/notebooks_cpu.json (do not edit by hand; deploy/README.md says how to use it).
#   helm upgrade --install amlab jupyterhub --repo https://hub.jupyter.org/helm-chart/ \\
#     --namespace amlab --create-namespace --values deploy/z2jh/values.yaml --values my-secrets.yaml
# my-secrets.yaml holds what is yours: the image's registry and tag, a real authenticator
# (hub.config.JupyterHub.authenticator_class and its settings) and who may log in (hub.config.Authenticator.
# allowed_users, or your authenticator's groups): deploy/z2jh/my-secrets.example.yaml. The password here is for a trial.
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
                # nobody is let in until my-secrets.yaml names who is (never allow_all: it would outlive the switch
                # to a real authenticator, and let every account of that provider in)
            },
        },
        "singleuser": {
            "image": {"name": IMAGE, "tag": IMAGE_TAG},
            "memory": {"guarantee": mebibytes(sizing.memory_guarantee), "limit": mebibytes(sizing.memory_limit)},
            "cpu": {"guarantee": sizing.cpu_guarantee, "limit": sizing.cpu_limit},
            "defaultUrl": "/lab/tree/my_notebooks/00_start_here.ipynb",
            "lifecycleHooks": {"postStart": {"exec": {"command": [
                "python", "-m", "deploy.learner_copies", "/home/jovyan"]}}},
            # the server shuts down idle kernels, as on one machine (the chart renders ``data`` as the file's JSON)
            "extraFiles": {"kernel-culling": {"mountPath": "/etc/jupyter/jupyter_server_config.json",
                                              "data": {"MappingKernelManager": KERNEL_CULL}}},
        },
        "cull": {"enabled": True, "timeout": CULL_TIMEOUT, "every": CULL_EVERY},
    }


def values_yaml(sizing):
    """The values file's text."""
    return HEADER + yaml.safe_dump(values(sizing), sort_keys=False, default_flow_style=False)
