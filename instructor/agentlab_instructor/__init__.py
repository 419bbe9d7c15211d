"""The instructor's half of the course: reference solutions and held-back tests.

This distribution is installed where the course is built and graded, never in a student's
environment; the grading sandbox cannot read it either.
"""
