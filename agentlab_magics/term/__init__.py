"""Running a term of the course on nbgrader: the course folder, the source notebooks made from
the curriculum (course/), nbgrader's command line, the demo's simulated students, and the
grade table."""
