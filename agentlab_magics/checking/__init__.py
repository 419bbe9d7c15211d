"""The judge: a lab's tests run against a student's code, which runs in a student process of
its own, over a protocol of plain data; each test reported in one sentence.

`runner.run` checks code; `report` holds what a check says. Importing this package loads
nothing: the student process imports its own modules (`student_side`, the protocol's but
`protocol.messages`) without the judge's, pydantic among them.
"""
