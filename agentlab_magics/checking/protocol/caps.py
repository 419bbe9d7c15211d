"""Every limit the judge and the student process keep to, each written once: what one frame,
one value, a test's printed output and calls back may hold, the student process's memory, and
how long the judge waits on it. Part of both processes: it imports nothing.
"""

# What crosses the pipe
FRAME_CAP = 32 << 20        # bytes of one frame
DEPTH_CAP = 100             # containers inside containers in one value
INT_BITS_CAP = 12_000       # bits of an int carried as data (Python prints about 4,300 digits)
OBJECTS_CAP = 1_000_000     # opcodes of one frame: what a student process's frame may build
OUTPUT_CAP = 4_000          # characters of printed output the judge keeps of one test, and so
#                             the most the student process sends between two of its messages
EXCEPTION_TEXT_CAP = 2_000  # characters of an exception's text, described either way
RECORD_EDGE = 25            # items kept at each end of a record too long to keep whole: the ends
#                             a report shows, and those a list past RECORD_CAP is told with

# The student process
MEMORY_CAP = 1 << 30        # bytes of address space its code may add to what the process had
PROBE_EVERY = 0.02          # seconds of its CPU time between two looks at the lists handed over

# The judge
CALLBACK_CAP = 20_000       # calls back into the judge one test may make
STRANGERS_CAP = 1_000       # classes made for one student process's class names, at most
START_LIMIT = 60.0          # seconds a student process may take to say hello (a sandbox's start)
SEND_LIMIT = 5.0            # seconds a message waits for room in the pipe when no test runs
CLOSE_LIMIT = 0.5           # seconds a student process has to end on its own (its atexit)
LINE_LIMIT = 0.5            # seconds a student process out of time has to say its line
