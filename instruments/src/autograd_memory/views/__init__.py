"""The views: measurements shown as a picture or a live display.

``graphs`` (``graph_table``, ``show_graph``, ``lifecycle``: what the backward graph saves, node by node), ``gauges``
(``MemoryGauge``: the meters live while a loop runs) and ``plots`` (``plot_trace``, ``compare_traces``). Pictures
need the extras (ipywidgets, matplotlib, graphviz), imported only inside the function that draws.

>>> import torch
>>> from autograd_memory.views.graphs import graph_table
>>> x = torch.ones(1000, requires_grad=True)
>>> graph_table(x.exp().sum()).total_bytes          # exp saves its result: 1000 float32
4000
"""
__all__ = []
