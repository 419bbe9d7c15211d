"""Views of agentlab results: each one object with a widget, a static HTML and a text rendering.

Importing this package loads neither IPython nor anywidget: the widget is built only when a
notebook displays a view. Exporting notebooks that hold views: see widgets.export.
"""

from agentlab_magics.widgets.live_transcript import LiveTranscript, watch
from agentlab_magics.widgets.report_view import ReportView, report_data
from agentlab_magics.widgets.transcript import Transcript
from agentlab_magics.widgets.transcript_data import transcript_data

__all__ = ["LiveTranscript", "ReportView", "Transcript", "report_data", "transcript_data",
           "watch"]
