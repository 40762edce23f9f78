"""The course for a class: JupyterHub on one machine or on Kubernetes, and nbgrader to grade its exercises.

``python -m deploy.assignments`` writes the nbgrader course, ``python -m deploy.sizing`` the per-student sizes;
deploy/README.md tells the whole of it.
"""
