"""Making what a course ships, from the instructor's references: the student package's
generated files (starters, the four runs' recording, the reference runs), the course folder's
source notebooks and the student wheel. `agentlab course build` runs it; nothing that checks
or grades imports it."""
