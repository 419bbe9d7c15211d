"""In-memory stand-ins for the world a tool touches: files, a shell, and a long log.

Nothing here reads or writes the real disk or runs a real command.
"""

from __future__ import annotations


class Workspace:
    """Files held in a dict; `reads` lists every path read, in order, repeats included."""

    # What code in another process (a student's, handed this workspace by a check) may use.
    __public__ = ("exists", "read_text", "write_text", "listdir", "files", "reads", "writes")

    def __init__(self, files: dict[str, str] | None = None):
        files = dict(files or {})
        for path, content in files.items():
            _check_file(path, content)
        self.files = {_clean(path): content for path, content in files.items()}
        self.reads: list[str] = []
        self.writes: list[str] = []

    def exists(self, path: str) -> bool:
        return _clean(path) in self.files

    def read_text(self, path: str) -> str:
        path = _clean(path)
        if path not in self.files:
            raise FileNotFoundError(f"File not found: {path}")
        self.reads.append(path)
        return self.files[path]

    def write_text(self, path: str, content: str) -> None:
        _check_file(path, content)
        self.writes.append(_clean(path))
        self.files[_clean(path)] = content

    def listdir(self, path: str = ".") -> list[str]:
        """The names directly inside `path`, sorted; a folder's name ends in "/"."""
        prefix = "" if _clean(path) in ("", ".") else _clean(path).rstrip("/") + "/"
        names = set()
        for name in self.files:
            if name.startswith(prefix):
                head, slash, _ = name[len(prefix):].partition("/")
                names.add(head + slash)
        return sorted(names)

    def __repr__(self) -> str:
        return f"Workspace({sorted(self.files)})"


def _clean(path: str) -> str:
    if not isinstance(path, str):
        raise TypeError(f"a path is a string, got {type(path).__name__}")
    return path[2:] if path.startswith("./") else path


def _check_file(path: object, content: object) -> None:
    _clean(path)  # type: ignore[arg-type]
    if not isinstance(content, str):
        raise TypeError(f"the content of {path} must be a string, got {type(content).__name__}")


class Shell:
    """A scripted shell: each known command line has a canned (output, exit_code).

    An answer may be a string (exit code 0), an (output, code) pair, or a function of the
    command line. An unknown command prints what bash prints and exits 127.
    """

    # What code in another process (a student's, handed this shell by a check) may use: the
    # canned answers never cross.
    __public__ = ("run", "commands")

    def __init__(self, answers: dict | None = None):
        self.answers = dict(answers or {})
        self.commands: list[str] = []

    def run(self, command: str) -> tuple[str, int]:
        self.commands.append(command)
        answer = self.answers.get(command)
        if answer is None:
            program = command.split()[0] if command.split() else command
            return f"bash: {program}: command not found\n", 127
        if callable(answer):
            answer = answer(command)
        if isinstance(answer, str):
            return answer, 0
        output, code = answer
        return output, int(code)


def big_log() -> str:
    """5,000 log lines with `def target` on line 2,400, sized so a 50 KB read cuts at 1,785."""
    lines = []
    for number in range(1, 5001):
        if number == 2400:
            message = "DEBUG def target"
        elif number > 1785 and number % 500 == 0:
            message = "WARN slow"
        else:
            message = "INFO request ok"
        lines.append(f"line {number:05d}: {message}\n")
    return "".join(lines)
