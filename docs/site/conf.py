"""Sphinx settings of the reading site: `make site` (tools/handouts.py) builds it from the executed notebooks.

It reads build/site-source/ (index.md from this folder and the executed notebooks, never run again:
``nb_execution_mode = "off"``) into build/site/, with warnings as errors, and opens from disk with no network:
the theme's files come with sphinx-book-theme, MathJax from django-static-mathjax (see ``setup`` below).
"""
import pathlib

from tools.course import load
from tools.handouts import copy_mathjax
from tools.project import repository

project = "Autograd Memory Lab"
author = "the Autograd Memory Lab authors"
copyright = "the Autograd Memory Lab authors, MIT licence"
extensions = ["myst_nb"]
nb_execution_mode = "off"  # tools/executed.py ran every notebook once; the site shows those outputs
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
smartquotes = False  # headings and prose keep the notebooks' own quotes and dashes (the tests look for them)
exclude_patterns = [".doctrees", "**.ipynb_checkpoints"]

html_theme = "sphinx_book_theme"
html_title = project
html_theme_options = {
    "repository_url": repository(),
    "repository_branch": load().branch,
    "path_to_docs": "learner",  # each page is the learner's edition: learner/<page>.ipynb in the repository (tools/editions.py)
    "use_repository_button": True,
    "launch_buttons": {"colab_url": "https://colab.research.google.com",
                       "binderhub_url": "https://mybinder.org", "notebook_interface": "jupyterlab"},
    "home_page_in_toc": True,
    "show_toc_level": 2,
}
html_last_updated_fmt = None
html_show_sphinx = False
html_sourcelink_suffix = ""  # the page's download button offers the executed notebook itself (_sources/NN.ipynb)
# Sphinx's default MathJax is a CDN's: this one is copied next to the pages (into _static/mathjax/).
mathjax_path = "mathjax/tex-svg.js"
mathjax3_config = {"options": {"enableMenu": False}}


def setup(app):
    def add_mathjax(app, error):
        if error is None:
            copy_mathjax(pathlib.Path(app.outdir) / "_static" / "mathjax")
    app.connect("build-finished", add_mathjax)
