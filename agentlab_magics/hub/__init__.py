"""The course on a real JupyterHub, on this machine: `agentlab hub demo`.

`recipe.py` lays the hub out (Unix users, the shared nbgrader exchange, each role's Jupyter
configuration, the instructor's course and the instructor package only the instructor can
read); `template/jupyterhub_config.py` is the hub's configuration, read by JupyterHub itself;
`demo.py` starts JupyterHub with it on 127.0.0.1 and stops it on Ctrl-C. docs/instructors.md
walks through it and maps it onto The Littlest JupyterHub and zero-to-jupyterhub.
"""
