"""The worked problems: the networks, equations and set-ups the notebooks measure, and that their checkers and
explorers share (a checker and an explorer of the same notebook build the same problem from here).

One module per problem: ``models`` (the course's one network), ``integrate`` (03), ``ode`` (04), ``pinn`` (05),
``laplacian_methods`` and ``laplacians`` (06). They import only torch and ``autograd_memory``, and each other downwards
(``laplacians`` measures the methods on ``pinn``'s heat problem, which uses ``laplacian_methods``). Notebooks name them
as before: ``from course_utils import pinn`` is ``course_utils.problems.pinn``.

>>> from course_utils.problems.ode import euler_problem
>>> field, x0, targets = euler_problem()              # notebook 04's problem, for its checkers and its explorer
>>> len(targets)
60
"""
__all__ = []
