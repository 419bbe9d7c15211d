"""The system calls a graded run may not make, as the seccomp filter bubblewrap loads.

Everything else is allowed: the filter refuses what no student's code needs and what a way
out of the sandbox would (debugging another process, mounting, new namespaces, kernel keys,
BPF programs, kernel modules, io_uring, handles to files by number), and what would let two
runs signal each other through a file they both see (watching files with inotify or dnotify,
leases). A refused call fails with EPERM, which Python raises as PermissionError in the
student's own code: the run goes on and the report shows the error. clone3 answers ENOSYS, so
the C library falls back to clone, whose namespace flags the filter can see.

File locks are granted without being taken: flock and fcntl's F_SETLK, F_SETLKW and their
open-file-description twins return success and hold nothing. Every run sees files that every
other run sees too (the system's libraries, /dev/null, the one inode behind every eventfd and
epoll, its user namespace), and a lock on one is visible from any other process on the
machine, so a real lock would be a channel between runs. A run is one submission, so the only
code its locks could keep apart is its own: sqlite3 and file locks on its scratch files work
as they do in one process (docs/security.md, the channels between runs).
"""

from __future__ import annotations

import errno
import tempfile
from functools import cache

REFUSED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount", "fspick",
    "move_mount", "open_tree", "mount_setattr", "unshare", "setns",
    "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "personality", "acct", "swapon", "swapoff", "reboot", "sethostname", "setdomainname",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "quotactl", "syslog",
    "iopl", "ioperm", "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "vhangup",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "fanotify_init", "uselib",
    "inotify_init", "inotify_init1",
)
# fcntl's commands that take a lock (F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW): granted,
# nothing held; and those that would watch a file or be told of another's use of it
# (F_SETLEASE, F_NOTIFY): refused.
TAKES_LOCK = (6, 7, 37, 38)
WATCHES = (1024, 1026)
# CLONE_NEWNS, _NEWCGROUP, _NEWUTS, _NEWIPC, _NEWUSER, _NEWPID and _NEWNET
NEW_NAMESPACES = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
                  0x40000000)


@cache
def compiled() -> bytes:
    """The filter as the BPF program bubblewrap loads, built once per process."""
    import pyseccomp as seccomp

    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in REFUSED:
        try:
            rules.add_rule(seccomp.ERRNO(errno.EPERM), name)
        except OSError:  # a call this architecture does not have
            pass
    for flag in NEW_NAMESPACES:
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "clone",
                       seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.add_rule(seccomp.ERRNO(0), "flock")
    for command in TAKES_LOCK:
        rules.add_rule(seccomp.ERRNO(0), "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    for command in WATCHES:
        rules.add_rule(seccomp.ERRNO(errno.EPERM), "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    with tempfile.TemporaryFile() as program:
        rules.export_bpf(program)
        program.seek(0)
        return program.read()
