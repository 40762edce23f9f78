"""Handouts that open with no network: a reveal.js deck per notebook (`make slides`) and a reading site (`make site`).

    python -m tools.handouts slides                 # build/slides/NN_name.slides.html and build/slides/index.html
    python -m tools.handouts slides --condensed     # the condensed lecture, one deck: build/slides-condensed/lecture.slides.html
    python -m tools.handouts site                   # build/site/index.html and one page per notebook
    python -m tools.handouts slides --build try     # the same under try/ instead of build/

Both read the notebooks executed once into build/executed/ (tools/executed.py). The decks are the lecture
edition (tools/lecture_edition.py: speaker notes in the speaker view, key S, with each live section's minutes;
condensed, the lecture path alone); the site is the learner's edition (tools/editions.py). Every file they write is
checked for an asset (script, style sheet, picture, font) that would come over the network, and the build
fails if one does: reveal.js is copied from sphinx-revealjs's wheel, MathJax from django-static-mathjax's,
the site's theme from sphinx-book-theme's. Live widgets (gauges, explorers) are dropped for the fallback
they leave beside them: the gauge's text line and summary table, the explorer's static HTML version (its
sliders over readouts measured in the kernel, course_utils/explorers/static_html.py).

    >>> assets('<link rel="stylesheet" href="https://cdn.example/x.css"><a href="https://b.example">b</a>')
    (['<link href> https://cdn.example/x.css'], [])
"""
import argparse
import copy
import html
import html.parser
import importlib.util
import pathlib
import re
import shutil
import sys
import time

from tools import student_handouts
from tools.course import ROOT, load
from tools.editions import learner_edition
from tools.executed import execute
from tools.lecture_edition import LECTURE, lecture_edition, one_lecture
from tools.project import repository
from tools.setup_cell import is_setup_cell

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
LIVE_ONLY = "amlab_live_only"  # an output's metadata key, autograd_memory.views.gauges.LIVE_ONLY: shown live only
SITE_CONF = ROOT / "docs" / "site"
OUTSIDE_LINK = re.compile(r"\]\(\.\./([^)\s]+)\)")  # a Markdown link from a notebook to a file outside notebooks/


def package_folder(module, *parts):
    """A folder inside an installed package, or a SystemExit that says how to install it."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise SystemExit(f"the Python package {module!r} is missing: run `make setup` "
                         "(it installs pyproject.toml's `teach` extra)")
    return pathlib.Path(spec.origin).parent.joinpath(*parts)


# reveal.js 5.2.0's own dist/ and plugin/ files, as the wheel of sphinx-revealjs==3.2.1 (pyproject's `teach`
# extra) ships them in sphinx_revealjs/_static/revealjs/: a package registry brings them, no CDN or npm.
REVEAL_FILES = ["LICENSE", "dist/reveal.js", "dist/reveal.css", "dist/reset.css", "dist/theme/white.css",
                "dist/theme/fonts/source-sans-pro", "plugin/notes/notes.js"]
# MathJax 3.2.2's SVG build (one file that draws its own glyphs: no font files) and the TeX extensions it may
# autoload, as django-static-mathjax==3.2.2.1 ships them in mathjax/static/mathjax/es5/ (the MathJax release's
# es5/ folder; the package needs no Django to be copied from).
MATHJAX_FILES = ["tex-svg.js", "input/tex/extensions"]


def copy_files(source, names, target):
    for name in names:
        if (source / name).is_dir():
            shutil.copytree(source / name, target / name, dirs_exist_ok=True)
        else:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, target / name)


def copy_reveal(target):
    copy_files(package_folder("sphinx_revealjs", "_static", "revealjs"), REVEAL_FILES, target)


def copy_mathjax(target):
    """MathJax for pages that load ``<target>/tex-svg.js``; docs/site/conf.py calls it for the site too."""
    copy_files(package_folder("mathjax", "static", "mathjax", "es5"), MATHJAX_FILES, target)


def static_copy(nb):
    """``nb`` as a page without a kernel shows it: each live widget's view dropped for the fallback beside it.

    >>> import nbformat
    >>> cell = nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output(
    ...     "display_data", data={WIDGET_VIEW: {"model_id": "1"}, "text/plain": "MemoryGauge 'x'"})])
    >>> static_copy(nbformat.v4.new_notebook(cells=[cell])).cells[0].outputs[0].data
    {'text/plain': "MemoryGauge 'x'"}

    An output marked live-only (a gauge's panel, whose summary is displayed after it) goes altogether:

    >>> from autograd_memory.views import gauges
    >>> cell.outputs[0].metadata = {gauges.LIVE_ONLY: True}
    >>> static_copy(nbformat.v4.new_notebook(cells=[cell])).cells[0].outputs
    []
    """
    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)  # the widgets' saved state: only a widget manager (from a CDN) reads it
    for cell in nb.cells:
        outputs = []
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET_VIEW, None)
            if output.get("metadata", {}).get(LIVE_ONLY):
                continue
            if output.output_type not in ("display_data", "execute_result") or output.data:
                outputs.append(output)
        if cell.cell_type == "code":
            cell.outputs = outputs
    return nb


def first_heading(nb):
    """The notebook's title: its first Markdown heading, without the ``#``."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return None


class _Assets(html.parser.HTMLParser):
    """What an HTML page loads by itself: src/href/data of the tags that fetch, url()/@import in styles, and
    ``import``/``src =`` of inline scripts; ``remote`` for those over the network, ``local`` for the others."""
    FETCHED = {"script": "src", "img": "src", "iframe": "src", "source": "src", "video": "src", "audio": "src",
               "embed": "src", "track": "src", "input": "src", "object": "data", "link": "href", "image": "href",
               "use": "href"}
    STYLE_URL = re.compile(r"""(?:@import\s+(?:url\(\s*)?|url\(\s*)['"]?([^'")\s]+)""", re.I)
    SCRIPT_URL = re.compile(r"""(?:\bimport\b[^'"\n;]*|\bimport\s*\(\s*|\.src\s*=\s*)['"]((?:https?:)?//[^'"]*)""", re.I)
    REMOTE = re.compile(r"(https?:)?//", re.I)
    NAVIGATION = {"canonical", "index", "search", "next", "prev", "author", "license", "help", "alternate", "home",
                  "top", "up", "first", "last", "contents", "glossary", "copyright"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.remote, self.local, self._in = [], [], None

    def _found(self, url, where):
        if self.REMOTE.match(url):
            self.remote.append(f"{where} {url}")
        elif url and not url.startswith(("data:", "#", "about:", "javascript:")):
            self.local.append(url)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and set((attrs.get("rel") or "").lower().split()) <= self.NAVIGATION:
            attrs.pop("href", None)  # a link a reader follows, not an asset
        for name in filter(None, [self.FETCHED.get(tag), "xlink:href" if tag in ("image", "use") else None]):
            self._found((attrs.get(name) or "").strip(), f"<{tag} {name}>")
        for url in self.STYLE_URL.findall(attrs.get("style") or ""):
            self._found(url, f"<{tag} style>")
        self._in = tag if tag in ("style", "script") else None

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "style":
            for url in self.STYLE_URL.findall(data):
                self._found(url, "<style>")
        elif self._in == "script":
            for url in self.SCRIPT_URL.findall(data):
                self._found(url, "<script> import")


def assets(page):
    """``(remote, local)``: the URLs ``page`` (HTML text) loads by itself; links a reader may follow are not assets.

    >>> assets('<script src="https://cdn.example/x.js"></script><img src="a.png"><a href="https://b.example">b</a>')
    (['<script src> https://cdn.example/x.js'], ['a.png'])
    """
    parser = _Assets()
    parser.feed(page)
    return parser.remote, parser.local


def check_offline(folder):
    """Fail when a page or style sheet under ``folder`` loads anything from the network, or a local file it
    loads is missing."""
    problems = {}
    for path in sorted(folder.rglob("*")):
        if path.suffix not in (".html", ".css") or (path.suffix == ".html" and "_static" in path.parts):
            continue  # (the theme's Jinja macros are copied into _static/ as .html files: not pages)
        text = path.read_text(errors="replace")
        remote, local = assets(text if path.suffix == ".html" else f"<style>{text}</style>")
        missing = [url for url in local if not (path.parent / re.split(r"[?#]", url)[0]).exists()]
        found = remote + [f"{url} (missing)" for url in missing]
        if found:
            problems[path.relative_to(folder)] = found
    if problems:
        listed = "\n".join(f"  {path}: {', '.join(found[:3])}" for path, found in problems.items())
        raise SystemExit(f"these pages would load from the network or miss a file (they must open offline):\n"
                         f"{listed}\nMake the asset local (copy it from a package at build time) or drop it.")


# --- slides ------------------------------------------------------------------------------------------------
# nbconvert's reveal template, made offline: no jQuery, require.js or mermaid from a CDN (the deck needs none of
# them: reveal.js 5 loads as a plain script, the course draws no mermaid diagrams), no widget manager (the widgets'
# views are dropped, see static_copy),
# MathJax 3 from the deck's folder instead of MathJax 2 from a CDN, and reveal.js from the deck's folder.
SLIDES_TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}
<script>
window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\(', '\\)']], processEscapes: true},
                  options: {enableMenu: false}};
</script>
<script defer src="mathjax/tex-svg.js"></script>
<style>
/* a slide taller than the screen scrolls (what nbconvert's `scroll` option did with jQuery) */
.reveal .slides > section > section { max-height: 100%; overflow-y: auto; }
</style>
<!-- the live slides' projector stylesheet (tools/rise.css), then what nbconvert's markup needs of it -->
<link rel="stylesheet" href="rise.css">
<style>
body.rise-enabled .reveal .jp-InputArea-editor .highlight pre {
  font-size: var(--jp-code-font-size); line-height: var(--jp-code-line-height);
  white-space: pre-wrap; word-break: break-word;
}
/* a cell is never wider than its slide: flex items may shrink below a wide picture's or a long line's width */
body.rise-enabled .reveal .slides section :is(.jp-Cell, .jp-InputArea, .jp-OutputArea-child, .jp-OutputArea-output,
                                              .jp-InputArea-editor) { min-width: 0; max-width: 100%; }
body.rise-enabled .reveal .slides section { text-align: left; }
body.rise-enabled .reveal .jp-RenderedHTMLCommon, body.rise-enabled .reveal .jp-RenderedText,
body.rise-enabled .reveal .jp-OutputArea-output { font-size: var(--jp-content-font-size1); }
/* the speaker view's previews draw the deck small: no word is broken letter by letter there */
body.rise-enabled.reveal-speaker-preview .reveal :is(.jp-RenderedText pre, .jp-InputArea-editor .highlight pre) {
  word-break: normal;
}
</style>
{%- endblock html_head_js_mathjax -%}
{% block footer_js %}
<script src="{{ reveal_url_prefix }}/dist/reveal.js"></script>
<script src="{{ reveal_url_prefix }}/plugin/notes/notes.js"></script>
<script>
document.body.classList.add("rise-enabled");  /* tools/rise.css's rules, as on the live slides */
if (window.location.search.includes("receiver")) document.body.classList.add("reveal-speaker-preview");
Reveal.initialize({
    controls: true, progress: true, history: true, slideNumber: "c/t", margin: 0,
    transition: "{{ reveal_transition }}", width: {{ reveal_width }}, height: {{ reveal_height }},
    plugins: [RevealNotes],
});
</script>
{% endblock footer_js %}
"""


def slides_exporter():
    import jinja2
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(extra_loaders=[jinja2.DictLoader({"offline_reveal.html.j2": SLIDES_TEMPLATE})],
                              template_file="offline_reveal.html.j2", embed_images=True,
                              exclude_input_prompt=True, exclude_output_prompt=True)
    exporter.reveal_url_prefix, exporter.reveal_theme = "reveal.js", "white"
    exporter.reveal_width, exporter.reveal_height = "1280", "720"  # a projector's 16:9, as the live slides are measured
    return exporter


def slide_count(page):
    """The views a deck steps through: reveal ``<section>``s that hold no other section.

    >>> slide_count("<section><section>a</section><section>b</section></section>"
    ...             "<section><section>c</section></section>")
    3
    """
    tags = re.findall(r"<(/?)section\b", page)
    return sum(1 for this, after in zip(tags, tags[1:]) if this == "" and after == "/")


def link_decks(nb):
    """Point the notebook's links to other notebooks at their decks (``01_x.ipynb`` -> ``01_x.slides.html``).

    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("see [01](01_graph_lifecycle.ipynb#Top)")])
    >>> link_decks(nb).cells[0].source
    'see [01](01_graph_lifecycle.slides.html#Top)'
    """
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = re.sub(r"\]\((\d\d_[\w-]+)\.ipynb\b", r"](\1.slides.html", cell.source)
    return nb


def deck_notebooks(executed, condensed=False):
    """``{deck name: notebook}``: the lecture edition of each executed notebook (paths); ``condensed``, one deck, the
    condensed lecture as one notebook (tools/lecture_edition.py's ``one_lecture``: its parts in order)."""
    import nbformat

    course = load()
    editions = {path.stem: lecture_edition(link_decks(static_copy(nbformat.read(path, as_version=4))), path.stem,
                                           course.lecture_path, condensed, course.cut) for path in executed}
    return {pathlib.Path(LECTURE).stem: one_lecture(editions)} if condensed and editions else editions


def build_slides(executed, folder, condensed=False, log=print):
    """One deck per executed notebook in ``folder`` (the lecture edition; ``condensed``, one deck: the condensed
    lecture), reveal.js and MathJax beside them, and an index; return ``{deck file name: slide count}``."""
    course = load()
    start, rows = time.perf_counter(), course.lecture_path
    folder.mkdir(parents=True, exist_ok=True)
    copy_reveal(folder / "reveal.js")
    copy_mathjax(folder / "mathjax")
    shutil.copy2(ROOT / "tools" / "rise.css", folder / "rise.css")
    exporter, decks, notebooks = slides_exporter(), {}, deck_notebooks(executed, condensed)
    for old in set(folder.glob("*.slides.html")) - {folder / f"{stem}.slides.html" for stem in notebooks}:
        old.unlink()  # the deck of a notebook that is gone
    for stem, nb in notebooks.items():
        nb.cells = [cell for cell in nb.cells if not is_setup_cell(cell)]  # Colab's set-up: nothing to show
        title = "The condensed lecture" if condensed else first_heading(nb) or stem
        nb.metadata["title"] = title
        page, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": stem, "path": str(executed[0].parent)}})
        name = f"{stem}.slides.html"
        (folder / name).write_text(page)
        decks[name] = (title, slide_count(page))
    listed = "\n".join(f'<li><a href="{name}">{html.escape(title)}</a> ({count} slides, '
                       f'<a href="{name.removesuffix(".html")}.pdf">PDF</a>)</li>'
                       for name, (title, count) in decks.items())
    slides = sum(count for _, count in decks.values())
    minutes = sum(row.minutes for row in rows if row.mode == "live")
    summary = (CONDENSED_SUMMARY if condensed else SUMMARY).format(slides=slides, decks=len(decks), minutes=minutes)
    (folder / "index.html").write_text(INDEX_PAGE.format(summary=summary, rows=listed))
    check_offline(folder)
    print_pdf([folder / name for name in decks], log)
    for name, (_, count) in decks.items():
        log(f"[slides] {name}: {count} slides")
    log(f"[slides] {len(decks)} decks in {time.perf_counter() - start:.1f} s -> {shown(folder / 'index.html')}")
    return {name: count for name, (_, count) in decks.items()}


def print_pdf(pages, log=print, chromium="/usr/bin/chromium"):
    """A PDF beside each deck (``NN_name.slides.pdf``), one page per slide, as chromium prints reveal.js's
    ``?print-pdf`` view; without chromium, say how to get it and go on (the decks themselves are built)."""
    if not pathlib.Path(chromium).exists():
        log(f"[slides] no PDFs: {chromium} is missing (Debian: sudo apt-get install chromium)")
        return []
    from playwright.sync_api import sync_playwright

    printed = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        for path in pages:
            page.goto(path.as_uri() + "?print-pdf")
            page.wait_for_function("() => window.Reveal && Reveal.isReady()")
            page.wait_for_timeout(500)  # MathJax and the pictures
            page.pdf(path=str(path.with_suffix(".pdf")), width="1280px", height="720px", print_background=True)
            printed.append(path.with_suffix(".pdf"))
        browser.close()
    log(f"[slides] {len(printed)} PDFs beside the decks")
    return printed


INDEX_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Autograd Memory Lab: slides</title>
<style>body {{ font: 18px/1.5 sans-serif; max-width: 46em; margin: 2em auto; }}</style></head>
<body><h1>Autograd Memory Lab: slides</h1>
<p>One deck per notebook, executed when it was built; every file it needs is in this folder, so it opens
from disk with no network. In a deck: arrow keys or space to move, <kbd>S</kbd> for the speaker notes,
<kbd>Esc</kbd> for an overview; add <code>?view=scroll</code> to a deck's address to read it as one page, or
<code>?print-pdf</code> to print it. {summary}</p>
<ol>
{rows}
</ol></body></html>
"""


SUMMARY = ("{slides} slides in {decks} decks. On the instructor guide's {minutes}-minute lecture path, each section's "
           "speaker notes open with its minutes in class; <code>make slides CONDENSED=1</code> builds that path alone.")
CONDENSED_SUMMARY = ("<strong>The condensed lecture</strong>: the instructor guide's lecture path alone, one deck of its "
                     "notebooks' title slides and live sections in order: <strong>{slides} slides in {decks} deck, "
                     "{minutes} minutes</strong> in class. Each slide's speaker notes open with its minutes.")


def shown(path):
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


# --- site --------------------------------------------------------------------------------------------------
def site_page(nb):
    """An executed notebook as the reading site shows it: the learner's edition (no speaker notes, which stay
    in the decks), its live widgets dropped for their static fallback, and its links to files beside the notebooks
    (a worked solution, the cheat sheet: ``../solutions/...``) sent to the repository, where the site finds them.

    >>> import nbformat
    >>> page = site_page(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("[s](../solutions/a.py)")]))
    >>> page.cells[0].source == f"[s]({repository()}/blob/{load().branch}/solutions/a.py)"
    True
    """
    nb, blob = static_copy(learner_edition(nb)), f"{repository()}/blob/{load().branch}/"
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = OUTSIDE_LINK.sub(lambda found: f"]({blob}{found[1]})", cell.source)
    return nb


def build_site(executed, folder, source=None, log=print):
    """A Sphinx + myst-nb site of the executed notebooks in ``folder`` (warnings are errors); return its pages."""
    import nbformat
    from sphinx.cmd.build import build_main

    start = time.perf_counter()
    source = source or folder.parent / "site-source"
    source.mkdir(parents=True, exist_ok=True)
    shutil.copy2(SITE_CONF / "index.md", source / "index.md")
    # the instructor guide, for lecturers who link the site; its links to notebooks/ point at the site's pages
    guide = (ROOT / "docs" / "instructors.md").read_text().replace("](../notebooks/", "](")
    if not (source / "instructors.md").exists() or (source / "instructors.md").read_text() != guide:
        (source / "instructors.md").write_text(guide)
    for path in executed:
        nb = site_page(nbformat.read(path, as_version=4))
        for cell in filter(is_setup_cell, nb.cells):  # Colab's set-up: off the page, kept in the download
            cell.metadata.setdefault("tags", []).append("remove-cell")
        text = nbformat.writes(nb)
        target = source / path.name
        if not target.exists() or target.read_text() != text:  # unchanged pages keep their time: Sphinx skips them
            target.write_text(text)
    for stale in set(source.glob("*.ipynb")) - {source / path.name for path in executed}:
        stale.unlink()
    code = build_main(["-W", "--keep-going", "-q", "-b", "html", "-c", str(SITE_CONF),
                       "-d", str(source / ".doctrees"), str(source), str(folder)])
    if code:
        raise SystemExit(f"the site did not build (Sphinx said why above; warnings count as errors). "
                         f"Its sources: {source}, its settings: {shown(SITE_CONF / 'conf.py')}")
    check_offline(folder)
    pages = [folder / "index.html", folder / "instructors.html", *(folder / f"{path.stem}.html" for path in executed)]
    missing = [str(page) for page in pages if not page.exists()]
    if missing:
        raise SystemExit(f"the site lacks these pages: {missing}")
    log(f"[site] {len(pages)} pages in {time.perf_counter() - start:.1f} s -> {shown(folder / 'index.html')}")
    return pages


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["slides", "site"])
    parser.add_argument("--condensed", action="store_true",
                        help="slides: the condensed lecture (the lecture path alone) in <build>/slides-condensed/")
    parser.add_argument("--build", type=pathlib.Path, default=ROOT / "build", help="build folder (default: build/)")
    args = parser.parse_args(argv)
    build, course = args.build.resolve(), load()
    if args.condensed and args.what != "slides":
        parser.error("--condensed goes with slides")

    def folder(edition):  # the edition's folder of course.toml's [editions], under --build
        return build / pathlib.Path(course.manifest["editions"][edition]).name

    if args.condensed:
        build_slides(execute(build, course.live_notebooks()), folder("slides_condensed"), condensed=True)
    elif args.what == "slides":
        build_slides(execute(build, course.paths), folder("slides"))
        student_handouts.build(build / "handouts", course)  # the students' cheat sheet and lab worksheet
    else:
        build_site(execute(build, course.paths), folder("site"))


if __name__ == "__main__":
    sys.exit(main())
