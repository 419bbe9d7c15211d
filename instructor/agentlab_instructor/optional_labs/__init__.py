"""Labs a course team may add to the course, each a lab folder (agentlab_magics.course.packs):
put this folder on $AGENTLAB_LABS (`python -m agentlab_instructor.optional_labs` prints it).

real-run  (after lesson 7) a real OpenAI Agents SDK trace with two bugs: find them with
          %transcript, fix the one in code, and fork the run at the turn it went wrong.
"""

from pathlib import Path

FOLDER = Path(__file__).resolve().parent
