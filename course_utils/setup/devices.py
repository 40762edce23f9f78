"""Pick the device the course's code runs on, so every notebook runs on CPU, CUDA or MPS unchanged."""
import pathlib
import platform
from typing import Optional

import torch

__all__ = ["pick_device", "device_name"]


def pick_device(prefer: Optional[str] = None) -> torch.device:
    """Return ``torch.device`` for ``prefer`` ("cpu", "cuda", "mps") or the best one available.

    >>> pick_device("cpu")
    device(type='cpu')

    Asking for a device this machine does not have raises a ``RuntimeError`` that says what to do.
    """
    if prefer is None:
        if torch.cuda.is_available():
            return torch.device("cuda")
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    device = torch.device(prefer)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise RuntimeError(
            "CUDA was asked for but this machine has no usable CUDA device "
            f"(torch {torch.__version__}, built with CUDA: {torch.version.cuda}). "
            "Run on the CPU (device='cpu'), or install a CUDA build of torch: see docs/setup.md, 'Using a GPU'."
        )
    if device.type == "mps" and not (getattr(torch.backends, "mps", None) and torch.backends.mps.is_available()):
        raise RuntimeError("MPS was asked for but is not available here; use device='cpu'.")
    return device


def device_name(device) -> str:
    """A readable name for reference data: the GPU's name, or the CPU's model (from /proc/cpuinfo where there is one).

    >>> isinstance(device_name(torch.device("cpu")), str)
    True
    """
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    cpuinfo = pathlib.Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()
