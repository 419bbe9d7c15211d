"""Imported by each Dask worker as it starts (LocalCluster's `preload`; on a cluster of your
own, `dask worker --preload agentlab_magics.grading.warm`): everything grading a submission
imports, so a worker's first submission does not wait for nbgrader, nbclient and the rest."""

from nbgrader.apps.api import NbGraderAPI  # noqa: F401

from agentlab_magics.grading import (  # noqa: F401
    autograde,
    gradebook_copy,
    one_submission,
)
