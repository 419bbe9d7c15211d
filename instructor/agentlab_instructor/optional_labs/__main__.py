"""Print the folder of the optional labs, for $AGENTLAB_LABS."""

from agentlab_instructor.optional_labs import FOLDER

print(FOLDER)
