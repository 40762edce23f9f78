"""Reference measurements from outside the course's own code, always shown with where they come from.

``data/reference/`` holds figures measured on hardware the course cannot assume (an NVIDIA H200), by
scripts that ship beside them. A notebook never types such a number: it loads the file, prints the
provenance, and reads the number from the data. The full provenance is printed the first time a kernel loads
a file, and again whenever the cell that printed it runs again (its earlier output is gone); another cell loading it
prints one short line that points back to it.

>>> ref = load_reference("h200_pinn_figures", show=False)
>>> ref.provenance["device"]
'NVIDIA H200'
>>> ref.data["trapz_grad"]["held_MB"] > 0
True
>>> print(ref.citation())  # doctest: +ELLIPSIS
reference data, not measured here: NVIDIA H200, torch 2.11.0+cu130, 2026-11-29, data/reference/ref_figures.py (...)
"""
import json
import pathlib
import sys
from dataclasses import dataclass

__all__ = ["Reference", "load_reference", "reference_names", "REFERENCE_DIR"]

REFERENCE_DIR = pathlib.Path(__file__).resolve().parents[2] / "data" / "reference"
_SHOWN = {}  # the files whose full provenance this process has printed: name -> the file name of the cell that did
_PACKAGE = str(pathlib.Path(__file__).resolve().parents[1])  # course_utils/: the frames to look past for the cell


def _loading_cell():
    """The file name of the code that loads a reference, outside course_utils: in a notebook the cell's (ipykernel
    names a cell's code by a hash of its source, so a cell run again has the same name)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    return frame and frame.f_code.co_filename


@dataclass(frozen=True)
class Reference:
    """One reference file: ``data`` (its JSON) and ``provenance`` (device, torch, date, script, configuration, units)."""
    name: str
    data: dict
    provenance: dict

    def citation(self):
        """One line that says where the numbers come from, for a notebook to print next to them."""
        p = self.provenance
        return (f"reference data, not measured here: {p['device']}, torch {p['torch']}, {p['date']}, "
                f"data/reference/{p['script']} ({p['configuration']}; {p['units']})")

    def reminder(self):
        """The short line printed when the citation has been printed already.

        >>> load_reference("h200_pinn_figures", show=False).reminder()
        'reference data, not measured here: NVIDIA H200 (data/reference/ref_figures.py; its full source was printed above)'
        """
        return (f"reference data, not measured here: {self.provenance['device']} "
                f"(data/reference/{self.provenance['script']}; its full source was printed above)")


def _index(directory):
    return json.loads((pathlib.Path(directory) / "index.json").read_text())


def reference_names(directory=REFERENCE_DIR):
    """The names :func:`load_reference` knows (the keys of ``data/reference/index.json``)."""
    return sorted(_index(directory))


def load_reference(name, show=True, directory=REFERENCE_DIR):
    """The reference file ``name`` as a :class:`Reference`; with ``show=True`` its citation is printed first,
    so that no number from it appears in a notebook without its source (the first time in this process and each time
    that cell runs again; in another cell its short :meth:`~Reference.reminder`)."""
    index = _index(directory)
    if name not in index:
        raise KeyError(f"no reference data named {name!r}; the names are {sorted(index)} "
                       f"(listed in {pathlib.Path(directory) / 'index.json'})")
    provenance = index[name]
    data = json.loads((pathlib.Path(directory) / provenance["file"]).read_text())
    reference = Reference(name, data, provenance)
    if show:
        cell = _loading_cell()
        shown_elsewhere = _SHOWN.get(name, cell) != cell
        print(reference.reminder() if shown_elsewhere else reference.citation())
        if not shown_elsewhere:
            _SHOWN[name] = cell
    return reference
