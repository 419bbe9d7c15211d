"""Runs of real agents, in and out: traces read into the course's messages (`read.read_run`)
and runs written out as OpenTelemetry spans (`export.export_run`)."""
