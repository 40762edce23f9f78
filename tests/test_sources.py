"""Code in a notebook: the posted residual without its docstring and meter calls, and long code folded."""
import inspect

import course_utils as cu
from course_utils import laplacians, pinn


def test_the_posted_residual_reads_without_docstring_and_mark_calls():
    shown = cu.source_code(pinn.usual_pattern, drop="mark(")
    full = inspect.getsource(pinn.usual_pattern)
    assert '"""' not in shown and "mark(" not in shown.replace("mark: ", "").replace("mark = ", "")
    assert shown.startswith("def usual_pattern(") and "torch.cuda.empty_cache()" in shown
    kept = [line for line in full.splitlines() if line in shown.splitlines()]
    assert kept == shown.splitlines(), "every line shown is the function's own, in its order"
    assert len(shown.splitlines()) <= 25 < len(full.splitlines())


def test_folded_sources_show_one_line_each_and_the_whole_code_when_opened():
    folded = cu.folded_sources(laplacians.METHODS)
    page = folded._repr_html_()
    assert page.count("<details>") == len(laplacians.METHODS) == len(str(folded).splitlines())
    for method in laplacians.METHODS.values():
        assert inspect.getsource(method).splitlines()[0].replace("<", "&lt;").replace(">", "&gt;") in page
