"""Held-back tests, one module per lab, named like the lab's visible tests module.

The grader makes each module from its text alone, as its own name, in a sandbox where no
other module of this package can be imported: a module here imports only agentlab_magics and
the standard library. checkpoint_a.py is generated (agentlab_instructor.checkpoint_held_back).
"""
