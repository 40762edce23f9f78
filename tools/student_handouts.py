"""The students' handouts, built offline by `make slides` into build/handouts/ as HTML and A4 PDF (chromium's print):

- ``cheat_sheet``: one A4 page of rules, each with its fix in code and the number that shows it, measured here with
  the course's meters when the sheet is built (never typed);
- ``lab_worksheet``: course.toml's ``[lab]`` tasks in order, each with its minutes, what to do and room to write the
  answer; the minutes fit the lab's 90 and the last tasks are 07's clinic.

    python -m tools.student_handouts               # build/handouts/{cheat_sheet,lab_worksheet}.{html,pdf}

>>> rows = lab_rows({"minutes": 90, "tasks": [{"notebook": "00", "task": "Read a meter", "minutes": 10, "answer": "bytes"}]})
>>> rows[0]["start"], rows[0]["end"]
(0, 10)
"""
import gc
import html
import pathlib
import sys

from tools.course import ROOT, load

CSS = """@page { size: A4; margin: 11mm; }
body { font: 9.6pt/1.3 system-ui, sans-serif; margin: 0; color: #111; }
h1 { font-size: 15pt; margin: 0 0 1.5mm; } p.lead { margin: 0 0 2.5mm; color: #333; }
.rule { break-inside: avoid; border-top: 1px solid #bbb; padding: 1.6mm 0; display: grid;
        grid-template-columns: 1fr 1fr; column-gap: 4mm; }
.rule h2 { grid-column: 1 / 3; font-size: 10.5pt; margin: 0 0 0.8mm; }
.rule pre { margin: 0; font-size: 8.4pt; background: #f4f4f4; padding: 1mm 1.5mm; white-space: pre-wrap; }
.rule .number { grid-column: 1 / 3; margin-top: 0.8mm; } .bad { border-left: 3px solid #c62828; }
.good { border-left: 3px solid #2e7d32; } .task { break-inside: avoid; border-top: 1px solid #bbb; padding: 2mm 0; }
.task h2 { font-size: 11pt; margin: 0 0 1mm; } .answer { border: 1px solid #888; min-height: 20mm; margin-top: 1.5mm;
        padding: 1mm; color: #777; font-size: 8.5pt; } .time { float: right; font-weight: bold; }"""


def _exp_keeps_its_output():
    import torch

    import course_utils as cu

    x = torch.randn(1000, requires_grad=True)
    with cu.GraphMemory() as graph:
        y = x.exp()
    del y
    return f"`x.exp()` on 1,000 float32 keeps {cu.format_bytes(graph.peak)}: its output, nothing of `x` (01 §2)."


def per_step(held, few=10, many=20):
    """Growth per step: the slope of ``held(steps)`` (bytes held after that many steps) between two step counts, so
    that what is held once (the batch, the parameters) is not spread over the steps.

    >>> per_step(lambda steps: 1000 + 8 * steps)
    8
    """
    return (held(many) - held(few)) // (many - few)


def _total_loss_keeps_every_graph():
    import torch

    import course_utils as cu

    model, batch = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1)), torch.randn(32, 8)

    def held(as_number, steps):
        total = 0
        with cu.GraphMemory() as graph:
            for _ in range(steps):
                loss = model(batch).pow(2).mean()
                total = total + (loss.item() if as_number else loss)  # noqa: AGM001 (the leak the sheet measures)
            del loss  # the last step's own graph: only what the total keeps stays
            return graph.bytes
    return (f"An evaluation loop over an 8 → 64 → 1 tanh MLP, batch 32: "
            f"{cu.format_bytes(per_step(lambda steps: held(False, steps)))} kept per step with the tensor, "
            f"{cu.format_bytes(per_step(lambda steps: held(True, steps)))} with `.item()` (01 «Accumulating a loss»).")


def _create_graph_cycle():
    import torch

    import course_utils as cu

    model = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
    params = list(model.parameters())
    with cu.GraphMemory() as cycle:
        loss = model(torch.randn(32, 8)).pow(2).mean()
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss.backward(create_graph=True)  # noqa: AGM004 (the cycle the sheet measures)
        del loss
        gc.collect()
        left = cycle.bytes
    for p in params:
        p.grad = None
    with cu.GraphMemory() as clean:
        loss = model(torch.randn(32, 8)).pow(2).mean()
        grads = torch.autograd.grad(loss, params, create_graph=True)
        del loss, grads
        gc.collect()
        none_left = clean.bytes
    return (f"After `del loss` and `gc.collect()`: {cu.format_bytes(left)} still saved through `.grad`; with "
            f"`autograd.grad`: {cu.format_bytes(none_left)} (01 §5).")


def _no_grad_peak():
    import torch

    import course_utils as cu

    layer = torch.nn.Sequential(torch.nn.Linear(2, 256), torch.nn.Tanh(), torch.nn.Linear(256, 1))
    points = torch.randn(20_000, 2)

    def at_once():
        with torch.no_grad():
            return layer(points)

    def chunked():
        with torch.no_grad():
            return torch.cat([layer(chunk) for chunk in points.split(2_000)])
    return (f"20,000 points through a 256-wide layer under `no_grad`: peak {cu.format_bytes(cu.measure(at_once).peak_bytes)}"
            f" at once, {cu.format_bytes(cu.measure(chunked).peak_bytes)} in chunks of 2,000 (02 §7).")


def _detach_per_step():
    import torch

    import course_utils as cu

    field = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4))

    def saved(detach, steps):
        x = torch.randn(16, 4)
        with cu.GraphMemory() as graph:
            for _ in range(steps):
                x = x + 0.1 * field(x)
                x.pow(2).mean().backward(retain_graph=not detach)
                if detach:
                    x = x.detach()
            return graph.bytes
    return (f"An Euler rollout of a 4 → 32 → 4 tanh field, 16 states: "
            f"{cu.format_bytes(per_step(lambda steps: saved(False, steps)))} per step stays with `retain_graph=True`, "
            f"{cu.format_bytes(per_step(lambda steps: saved(True, steps)))} with a per-step `detach()` (04 §3-4).")


def _find_leaks_names_the_line():
    from course_utils import find_leaks
    from course_utils.checks import nb07_find_the_leak as checks

    report = find_leaks(checks.mystery("running_loss")["step"])
    row = report.top
    return (f"`running_loss = running_loss + loss`: {report.bytes_per_step} B/step, +{row.nodes_per_step} graph nodes "
            f"per step, kept by `{row.holder}` (07 Mystery 6).")


# (the rule, the leaking code, its fix, the measurement that shows it)
RULES = [
    ("An op keeps what its derivative needs, until backward() frees it",
     "y = x.exp()      # keeps exp's output\nz = x.sin()      # keeps x", "loss.backward()  # frees what the graph saved",
     _exp_keeps_its_output),
    ("Log a number, not a tensor: a kept loss keeps its whole graph",
     "total_loss += loss", "total_loss += loss.item()", _total_loss_keeps_every_graph),
    ("create_graph=True hangs a graph on .grad, a cycle gc cannot free",
     "loss.backward(create_graph=True)", "grads = torch.autograd.grad(\n    loss, params, create_graph=True)",
     _create_graph_cycle),
    ("no_grad empties the graph, not the peak: chunk to lower the peak",
     "with torch.no_grad():\n    out = net(points)",
     "with torch.no_grad():\n    out = torch.cat([net(c) for c in\n        points.split(2_000)])",
     _no_grad_peak),
    ("A rollout keeps every step unless you cut it",
     "x = x + dt * f(x)\nloss.backward(retain_graph=True)", "x = x + dt * f(x)\nloss.backward()\nx = x.detach()",
     _detach_per_step),
    ("Ask the meter which line leaks and what keeps it",
     "running_loss = running_loss + loss", "report = cu.find_leaks(step)\nrunning_loss += loss.item()",
     _find_leaks_names_the_line),
]


def cheat_sheet():
    """The cheat sheet's HTML, every number measured now."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        rows = [(rule, bad, good, measure()) for rule, bad, good, measure in RULES]
    finally:
        torch.set_num_threads(threads)
    blocks = "".join(
        f"<div class='rule'><h2>{html.escape(rule)}</h2><pre class='bad'>{html.escape(bad)}</pre>"
        f"<pre class='good'>{html.escape(good)}</pre><div class='number'>{_code(number)}</div></div>"
        for rule, bad, good, number in rows)
    return _page("Autograd memory: the rules", "Left: code that keeps memory. Right: the fix. Under each, what the "
                 "course's meters measured when this sheet was built (CPU, exact bytes).", blocks)


def _code(text):
    parts = html.escape(text).split("`")
    return "".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts))


def _page(title, lead, body):
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{html.escape(title)}</h1><p class='lead'>{lead}</p>{body}</body></html>")


def lab_rows(lab):
    """The lab's tasks with their start and end minute."""
    rows, clock = [], 0
    for task in lab["tasks"]:
        rows.append({**task, "start": clock, "end": clock + task["minutes"]})
        clock += task["minutes"]
    return rows


def lab_worksheet(course):
    rows = lab_rows(course.manifest["lab"])
    body = "".join(
        f"<div class='task'><span class='time'>min {row['start']}-{row['end']}</span><h2>{i}. {_code(row['task'])} "
        f"<small>({html.escape(row['notebook'])})</small></h2><div>{_code(row.get('do', ''))}</div>"
        f"<div class='answer'>{_code(row['answer'])}</div></div>" for i, row in enumerate(rows, 1))
    lead = (f"{course.manifest['lab']['minutes']} minutes, in your own copy of the notebooks (<code>make lab</code>, "
            "Colab or Binder). Each exercise's checker says what is wrong, not only that it is. Write your answer in "
            "the box before you run the check.")
    return _page("Lab worksheet: find and fix autograd memory", lead, body)


def print_pdfs(pages, chromium="/usr/bin/chromium", log=print):
    """An A4 PDF beside each HTML page, printed by chromium; ``{page: pages printed}``."""
    import re

    if not pathlib.Path(chromium).exists():
        log(f"[handouts] no PDFs: {chromium} is missing (Debian: sudo apt-get install chromium)")
        return {}
    from playwright.sync_api import sync_playwright

    counts = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox"])
        page = browser.new_page()
        for path in pages:
            page.goto(path.as_uri())
            page.pdf(path=str(path.with_suffix(".pdf")), format="A4", prefer_css_page_size=True, print_background=True)
            counts[path] = len(re.findall(rb"/Type\s*/Page\b", path.with_suffix(".pdf").read_bytes()))
        browser.close()
    return counts


def build(folder, course=None, log=print):
    """The two handouts in ``folder``, HTML and PDF; returns ``{html path: PDF pages}``."""
    course = course or load()
    folder.mkdir(parents=True, exist_ok=True)
    sheet, worksheet = folder / "cheat_sheet.html", folder / "lab_worksheet.html"
    sheet.write_text(cheat_sheet())
    worksheet.write_text(lab_worksheet(course))
    counts = print_pdfs([sheet, worksheet], log=log)
    for path, pages in counts.items():
        log(f"[handouts] {path.name}: {pages} A4 page{'s' if pages > 1 else ''} -> {path.with_suffix('.pdf')}")
    return counts


if __name__ == "__main__":
    build(ROOT / "build" / "handouts")
    sys.exit(0)
