"""Reference solutions: the harness students build in lessons 1-6, and the checkpoint's loops."""
