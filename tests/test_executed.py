"""`make test` executes each notebook once: nbval's run leaves the copy the handouts read (tools/executed.py)."""
import os
import subprocess
import sys
import textwrap
import time

import nbformat
import pytest

from tools import executed


@pytest.mark.parametrize("changed", ["notebooks/00_x.ipynb", "course_utils/meters.py", "instruments/src/pkg/reading.py"])
def test_an_executed_copy_is_stale_once_its_notebook_or_the_code_it_imports_changed(tmp_path, changed):
    """The slides and the site show the instruments' readings: a change to instruments/src/, as to course_utils/ or
    the notebook, makes the executed copy stale."""
    for name in ("notebooks/00_x.ipynb", "course_utils/meters.py", "instruments/src/pkg/reading.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
        os.utime(tmp_path / name, (1_000_000, 1_000_000))
    notebook, copy = tmp_path / "notebooks" / "00_x.ipynb", tmp_path / "build" / "executed" / "00_x.ipynb"
    copy.parent.mkdir(parents=True)
    copy.write_text("")
    os.utime(copy, (2_000_000, 2_000_000))
    assert executed.is_fresh(notebook, copy, tmp_path)
    os.utime(tmp_path / changed, (3_000_000, 3_000_000))
    assert not executed.is_fresh(notebook, copy, tmp_path), f"{changed} changed after the copy was executed"


@pytest.mark.slow
def test_nbval_leaves_each_notebook_it_ran_executed_and_marks_one_that_failed(tmp_path, root):
    cells = [nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("print('hello')"),
             nbformat.v4.new_code_cell("1 + 1")]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), tmp_path / "00_good.ipynb")
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("raise ValueError('no')")]),
                   tmp_path / "01_bad.ipynb")
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""
        import pathlib, sys
        sys.path.insert(0, {str(root)!r})
        from tools import executed

        def pytest_configure(config):
            config.pluginmanager.register(executed.FromNbval(build=pathlib.Path({str(tmp_path / 'build')!r})))
    """))
    started = time.time() - 1
    env = {**os.environ, executed.SESSION: str(started)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "--nbval-lax",
                           "--nbval-current-env", "00_good.ipynb", "01_bad.ipynb"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert "1 failed, 2 passed" in done.stdout, done.stdout + done.stderr
    copy = nbformat.read(tmp_path / "build" / "executed" / "00_good.ipynb", as_version=4)
    code = [cell for cell in copy.cells if cell.cell_type == "code"]
    assert [cell.outputs[0].get("text") for cell in code] == ["hello\n", None]
    assert code[1].outputs[0].data["text/plain"] == "2" and [cell.execution_count for cell in code] == [1, 2]
    assert not (tmp_path / "build" / "executed" / "01_bad.ipynb").exists()
    assert (tmp_path / "build" / "executed" / ("01_bad" + executed.FAILED)).exists()
    os.environ[executed.SESSION], before = str(started), os.environ.get(executed.SESSION)
    try:
        assert executed.wait_for_nbval([tmp_path / "00_good.ipynb", tmp_path / "01_bad.ipynb"], tmp_path / "build",
                                       timeout=5, log=lambda _: None) == []
        assert executed.wait_for_nbval([tmp_path / "02_never.ipynb"], tmp_path / "build", timeout=1,
                                       log=lambda _: None) == [tmp_path / "02_never.ipynb"]
    finally:
        if before is None:
            del os.environ[executed.SESSION]
        else:
            os.environ[executed.SESSION] = before


def test_make_test_hands_out_every_notebook_before_the_handout_test_that_waits_for_it(root):
    """The handout test waits for nbval's copies of the notebooks: `make test` hands out its scopes in the suite's run
    order (notebooks first, tests/conftest.py), never largest first, so no notebook waits behind it on its worker."""
    parallel = next(line for line in (root / "Makefile").read_text().splitlines() if line.startswith("PYTEST_PARALLEL"))
    assert "--dist loadscope" in parallel and "--no-loadscope-reorder" in parallel, parallel
