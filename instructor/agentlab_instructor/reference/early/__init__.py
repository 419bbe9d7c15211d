"""Early versions of names the harness later revises, each as it stands in one lesson."""
