"""Imported by each Dask worker as it starts (LocalCluster's `preload`; on a cluster of your
own, `dask worker --preload agentlab_magics.grading.warm`): everything grading a submission
imports, and what grading finds out about the machine once a process (the sandbox's mode, the
setuid files a run covers), so a worker's first submission takes no longer than its next.
Where workers are forked (batch.local_cluster), the batch's process imports this first, and
every worker holds it all from its start."""

# what jupyter_client's KernelSpecManager imports to find the kernel folders and the native
# kernel, the first time a kernel starts
from ipykernel import kernelspec  # noqa: F401
from IPython import paths  # noqa: F401
from nbgrader.apps.api import NbGraderAPI  # noqa: F401

from agentlab_magics.grading import (  # noqa: F401
    autograde,
    gradebook_copy,
    one_submission,
)
from agentlab_magics.grading.sandbox import detect, setuid_files

detect()
setuid_files()
