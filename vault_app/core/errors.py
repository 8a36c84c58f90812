"""The exceptions the core raises: each names the file, the place in it and the reason."""

from __future__ import annotations

from pathlib import Path


class VaultError(Exception):
    """Base of every error the library raises on purpose; its message is one line."""


class InvalidArgumentError(VaultError):
    """An argument a face received as text that cannot be read (a date, a filter): the
    CLI shows it as a usage error (exit status 2), an MCP client as the tool's error."""


class InvalidIdError(VaultError):
    """An entity id, agent id or fact id that is malformed or points outside the vault."""


class NotFoundError(VaultError):
    """A vault, entity, agent, fact or document that does not exist."""


class AlreadyExistsError(VaultError):
    """Creating something that is already there."""


class CorruptFileError(VaultError):
    """A file that cannot be understood: bad JSON, bad UTF-8, wrong types, too large.

    `location` says where in the file (``line 3, column 7``, ``[12].accessCount``).
    The file is never overwritten while it is corrupt.
    """

    def __init__(self, path: Path | str, reason: str, location: str | None = None) -> None:
        self.path = Path(path)
        self.reason = reason
        self.location = location
        where = f" at {location}" if location else ""
        super().__init__(f"{self.path}{where}: {reason}")


class SymlinkError(CorruptFileError):
    """A symlink where vault-app writes, rotates, sweeps, quarantines, locks or logs (the
    file itself or a folder on the way to it): it is never followed, the write refused."""

    def __init__(
        self,
        path: Path | str,
        target: str | None = None,
        why: str = "vault-app does not write through symlinks",
    ) -> None:
        to = f" (to {target})" if target else ""
        super().__init__(path, f"is a symlink{to}; {why}")
        self.target = target
        self.args = (f"{self.path} {self.reason}",)


class NotRegularFileError(CorruptFileError):
    """A FIFO, socket, device or folder where vault-app expects a regular file: it is
    never opened for its content (a FIFO would block the reader forever), only reported."""


class ConflictError(VaultError):
    """The file changed on disk since the writer read it; the write was refused."""

    def __init__(self, path: Path | str, expected: str | None, actual: str | None) -> None:
        self.path = Path(path)
        self.expected = expected
        self.actual = actual
        super().__init__(
            f"{self.path}: changed on disk since it was read "
            f"(expected {_short(expected)}, found {_short(actual)}); reload and try again"
        )


class LockTimeoutError(VaultError):
    """Another writer held the lock on a file for longer than the configured timeout."""


class InvalidFactError(VaultError):
    """A fact (or an edit to one) that breaks the schema: empty text, unknown category…"""


class AccessDeniedError(VaultError):
    """An agent asked to write where it may not (another agent's workspace, a global
    entity without being a global writer, global/AGENTS.md). The message names the
    agent, the target and the rule that refused it."""


class QuotaExceededError(VaultError):
    """A write (or a session) over one of an agent's quotas (`quotas`, `[quotas]` of
    .vault/config.toml). The message names the limit and its value."""


class DataLossError(VaultError):
    """A write refused because the file would come out holding less than it held (a fact
    file with fewer facts): vault-app never deletes a fact, so the file is left as it was."""

    def __init__(self, path: Path | str, reason: str) -> None:
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"refusing to write {self.path}: {reason}")


def decode_utf8(path: Path | str, data: bytes, codec: str = "utf-8") -> str:
    """`data` decoded, or a CorruptFileError naming the file and the first bad byte."""
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        raise CorruptFileError(path, f"invalid UTF-8 ({exc.reason})", f"byte {exc.start}") from None


def _short(digest: str | None) -> str:
    return "no file" if digest is None else digest[:12]
