"""Checkpoint A's two loops (`loops.py`), which students are given; no reference solution.

The reference harness and every lab's solution are the instructor's: agentlab_instructor.
"""
