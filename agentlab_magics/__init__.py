"""agentlab_magics: IPython magics, a teaching runtime and an nbgrader course for an agent loop.

Importing the package is cheap: the magics, widgets and checker load only when asked for.
"""

from agentlab_magics.version import __version__

__all__ = ["__version__", "load_ipython_extension", "unload_ipython_extension"]


def _jupyter_server_extension_points():
    """The Jupyter server extension: notebooks saved from JupyterLab or Notebook hold each
    agentlab view as its static HTML (agentlab_magics.widgets.saving). Enabled by
    etc/jupyter/jupyter_server_config.d/agentlab_magics.json, which the package installs."""
    return [{"module": "agentlab_magics.widgets.saving"}]


def load_ipython_extension(ipython):  # pragma: no cover - exercised through IPython
    """`%load_ext agentlab_magics`: register the magics on this shell (idempotent)."""
    from agentlab_magics.magics import register

    register(ipython)


def unload_ipython_extension(ipython):  # pragma: no cover - exercised through IPython
    """`%unload_ext agentlab_magics`: remove what loading registered."""
    from agentlab_magics.magics import unregister

    unregister(ipython)
