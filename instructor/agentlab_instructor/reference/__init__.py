"""Reference solutions, the instructor's only: nothing under agentlab_magics holds them.

- `harness.py`: the harness as it stands at the end of lesson 6; the harness labs' starters,
  references and marked files are cut out of it (see `agentlab_instructor.lab_files`).
- `early/`: the names a later lesson revises, each as it stands in one lesson.
- `functions.py`: the one-function labs (checkpoint A's test lab, ch03-a, its transfer, ch03-b),
  each as its starter and its reference.
"""
