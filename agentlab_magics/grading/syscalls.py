"""The system calls a graded run may not make, as the seccomp filter bubblewrap loads.

Everything else is allowed: the filter refuses what no student's code needs and what a way
out of the sandbox would (debugging another process, mounting, new namespaces, kernel keys,
BPF programs, kernel modules, io_uring, handles to files by number). A refused call fails with
EPERM, which Python raises as PermissionError in the student's own code: the run goes on and
the report shows the error. clone3 answers ENOSYS, so the C library falls back to clone, whose
namespace flags the filter can see.
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
)
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
    with tempfile.TemporaryFile() as program:
        rules.export_bpf(program)
        program.seek(0)
        return program.read()
