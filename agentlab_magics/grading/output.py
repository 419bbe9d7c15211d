"""Bounded outputs: a cell's outputs in an autograded notebook stop at `CapOutput.limit`
characters (100,000 by default), with a last line saying how much was cut, so a cell that
prints 100 MB makes neither a 100 MB notebook nor a 100 MB feedback page. What the grader
dropped while the cell ran (`ScoredOutside.received_limit`, noted in the cell's metadata) is
counted in that line too."""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool, Integer

NOTICE = "[agentlab: this cell's output was cut here: {cut:,} more characters were left out]"
DROPPED = "output_dropped"  # cell.metadata["agentlab"][DROPPED]: characters never received


def _size(output: dict) -> int:
    if output.get("output_type") == "stream":
        return len(output.get("text", ""))
    if output.get("output_type") == "error":
        return len(output.get("evalue", "")) + sum(map(len, output.get("traceback", [])))
    return sum(len(v) if isinstance(v, str) else len(str(v))
               for v in output.get("data", {}).values())


class CapOutput(Preprocessor):
    """Keep each cell's outputs, in order, while they fit `limit` characters; cut a stream that
    crosses the limit, drop what follows, and say how much went."""

    # nbconvert's Preprocessor is off unless told otherwise; this one always runs.
    enabled = Bool(True, help="Cut each cell's outputs.").tag(config=True)
    limit = Integer(100_000, help="Characters of output kept per cell.").tag(config=True)

    def preprocess_cell(self, cell, resources, index):
        if cell.get("cell_type") != "code":
            return cell, resources
        kept, used = [], 0
        cut = cell.get("metadata", {}).get("agentlab", {}).pop(DROPPED, 0)
        for output in cell.get("outputs", []):
            size = _size(output)
            if used + size <= self.limit:
                kept.append(output)
                used += size
            elif output.get("output_type") == "stream" and used < self.limit:
                room = self.limit - used
                output.text, used, cut = output.text[:room], self.limit, cut + size - room
                kept.append(output)
            elif output.get("output_type") == "error":
                kept.append(output)  # an error decides the score: it stays, cut to a line
                output.traceback = output.get("traceback", [])[-1:]
                output.evalue = output.get("evalue", "")[:2_000]
            else:
                cut += size
        if cut:
            kept.append(new_output("stream", name="stdout", text="\n" + NOTICE.format(cut=cut)))
        cell.outputs = kept
        return cell, resources
