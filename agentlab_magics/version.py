"""The package's version, at the bottom of the layers: what the package is called by in its
metadata (pyproject.toml) and what a grading's fingerprint records."""

__version__ = "0.1.0"
