"""What a course's author uses: the mutants that prove a lab's tests, and the lab's check."""
