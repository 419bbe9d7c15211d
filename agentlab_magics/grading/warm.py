"""Imported by each Dask worker as it starts (LocalCluster's `preload`; on a cluster of your
own, `dask worker --preload agentlab_magics.grading.warm`): everything grading a submission
imports, so a worker's first submission does not wait for nbgrader, nbclient and the rest."""

from agentlab_magics.grading import gradebook_copy  # noqa: F401 (first: keeps a slow import out)
from agentlab_magics.grading import autograde, one_submission  # noqa: F401
from nbgrader.apps.api import NbGraderAPI  # noqa: F401
