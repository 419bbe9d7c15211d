"""Held-back tests, one module per lab named like the lab's visible tests module."""
