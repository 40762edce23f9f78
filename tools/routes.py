"""What a route through a notebook asks of its reader, beyond the cells it names: the cells those cells need (a name a
skipped cell binds) and the places the reader has to find. tools/fast_path.py checks the fast path with it, and the
reading model (tools/reading_model.py) counts a timed route's cells and jumps with it.

    >>> import nbformat
    >>> cells = [nbformat.v4.new_code_cell(s) for s in ("import torch", "x = torch.ones(2)", "print(len(x))")]
    >>> missing_names(cells, [2]), closure(cells, [2])
    ([(2, 'x', 1)], [0, 1, 2])
"""
import ast
import builtins


def jumps(stop_ranges):
    """How many times a reader must find their place: each stop that does not start at its notebook's top or where
    the stop before it in that notebook ended.

    >>> jumps([("05", 0, 9), ("05", 9, 87), ("07", 90, 96)])
    1
    """
    ended, count = {}, 0
    for notebook, start, end in stop_ranges:
        count += start != ended.get(notebook, 0)
        ended[notebook] = end
    return count


def names(source):
    """``(names a cell binds, names it reads)``; a cell that is not Python (a magic) binds and reads nothing.

    >>> sorted(names("import torch\\nx = torch.ones(2)\\nprint(y)")[1])
    ['print', 'torch', 'y']
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set(), set()
    bound, read_names = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (read_names if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return bound, read_names


def missing_names(cells, indices):
    """``[(cell, name, the skipped cell that binds it)]``: names the chosen code cells read that no chosen cell before
    them binds, but a skipped cell above does (a ``NameError``, or a stale value, for a learner who skips it)."""
    missing, bound = [], set(dir(builtins))
    for index in indices:
        if cells[index].cell_type != "code":
            continue
        binds, reads = names(cells[index].source)
        for name in sorted(reads - bound - binds):
            binders = [i for i in range(index) if cells[i].cell_type == "code" and name in names(cells[i].source)[0]]
            if binders:
                missing.append((index, name, binders[-1]))
        bound |= binds
    return missing


def closure(cells, indices):
    """``indices`` and every cell above them that they need, directly or through each other (:func:`missing_names`):
    what a learner who follows a route honestly has to find and run."""
    chosen = set(indices)
    while missing := missing_names(cells, sorted(chosen)):
        chosen.update(binder for _, _, binder in missing)
    return sorted(chosen)
