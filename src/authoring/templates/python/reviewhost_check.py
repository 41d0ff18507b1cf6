"""The reviewhost side of a Python validator: the root, globs, verdicts, the export.

Inside the sandbox the repository root is `/`, read-only, and nothing else exists (or,
when the assertion has `paths`, only those directories, each at `/<path>`). Every path
this module hands out or takes is root-relative with `/` separators (`src/a.py`), the
form evidence wants.

`Root` reads through the WASI filesystem interface itself, as reviewhost's Rust SDK
does: CPython's `open` and `os.scandir` work too, but pay for an extra stream per read
and a stat per directory entry, about three times the cost per file.

Everything is imported here, at module level, on purpose: see `_close_imports`.
"""

import json
import re
import sys

from componentize_py_types import Err
from wit_world import exports
from wit_world.imports import preopens
from wit_world.imports.reviewhost_check_types import Evidence, Verdict
from wit_world.imports.wasi_filesystem_types import (
    DescriptorFlags,
    DescriptorType,
    ErrorCode,
    OpenFlags,
    PathFlags,
)

# Bytes `Root.read` returns at most unless told otherwise: a validator reads source
# files, and the sandbox's memory limit is 256 MiB.
READ_LIMIT = 16 * 1024 * 1024

# No `symlink-follow`: a symlink as the last component of a path is never followed.
NO_FOLLOW = PathFlags(0)


class CheckError(Exception):
    """Raise it to say "could not evaluate": the host reports status `error`, never a pass."""


def passed(message):
    """A verdict: the assertion holds."""
    return Verdict(passed=True, message=message, evidence=[])


def failed(message, evidence=()):
    """A verdict: the assertion does not hold, with what was found."""
    return Verdict(passed=False, message=message, evidence=list(evidence))


def evidence(path, text, line=None):
    """One piece of evidence: a root-relative path, the text seen, a 1-based line or None."""
    return Evidence(path=path, line=line, text=text)


class Root:
    """The repository, as the WASI preopens show it."""

    def __init__(self):
        self._mounts = None

    def _mounted(self):
        """(descriptor, root-relative directory) of each mounted directory ("" is the root)."""
        if self._mounts is None:
            mounts = preopens.get_directories()
            self._mounts = [(directory, name.strip("/")) for directory, name in mounts]
        return self._mounts

    def visible(self):
        """The root-relative directories this check can see: `[""]` for the whole root."""
        names = [name for _, name in self._mounted()]
        return [""] if "" in names else sorted(names)

    def _open(self, relative, open_flags):
        """A descriptor for a root-relative path, and whether it is a mount (never closed)."""
        path = relative.strip("/")
        for directory, name in self._mounted():
            if name and path != name and not path.startswith(name + "/"):
                continue
            rest = path[len(name) + 1 :] if name else path
            if not rest:
                return directory, True
            return directory.open_at(NO_FOLLOW, rest, open_flags, DescriptorFlags.READ), False
        raise Err(ErrorCode.NO_ENTRY)  # outside the directories `paths` mounted

    def files(self, under=".", hidden=False):
        """The regular files under `under` (root-relative, `.` for everything visible), sorted.

        A symlink is never followed, not even one that leads inside the root: a link is
        neither a file nor a directory here, so a walk cannot loop or see a file twice.
        Names starting with `.` (`.git`, ...) are skipped unless `hidden`. `.gitignore`
        is not read. A directory that does not exist has no files.
        """
        start = under.strip("/")
        pending = self.visible() if start in ("", ".") else [start]
        starts, found = set(pending), set()
        while pending:
            relative = pending.pop()
            try:
                directory, mount = self._open(relative, OpenFlags.DIRECTORY)
            except Err as e:
                if relative in starts and _code(e) in ("no-entry", "not-directory"):
                    continue
                raise CheckError(f"{relative or '/'}: cannot list: {_code(e)}")
            try:
                # Each handle is released at once: a check may hold only so many.
                with directory.read_directory() as stream:
                    while (entry := stream.read_directory_entry()) is not None:
                        if not hidden and entry.name.startswith("."):
                            continue
                        path = f"{relative}/{entry.name}" if relative else entry.name
                        if entry.type == DescriptorType.DIRECTORY:
                            pending.append(path)
                        elif entry.type == DescriptorType.REGULAR_FILE:
                            found.add(path)
            except Err as e:
                raise CheckError(f"{relative or '/'}: cannot list: {_code(e)}")
            finally:
                if not mount:
                    directory.__exit__(None, None, None)
        return sorted(found)

    def files_matching(self, globs, hidden=False):
        """The files whose root-relative path matches any of `globs`, sorted.

        Globs as in `.gitignore`: `*` and `?` do not cross `/`, `**` is any number of
        directories (`src/**/*.py`, `**/*.toml`), plus `[abc]` and `{py,pyi}`. Only the
        directory each glob starts with (`src` for `src/**/*.py`) is walked.
        """
        if isinstance(globs, str) or not all(isinstance(g, str) for g in globs):
            raise CheckError(f"globs must be a list of strings, not {globs!r}")
        patterns = [compile_glob(g) for g in globs]
        bases = sorted({_base(g) for g in globs})
        # A base inside another one is walked with it.
        bases = [b for b in bases if not any(_inside(b, o) for o in bases)]
        found = set()
        for base in bases:
            found.update(f for f in self.files(base, hidden) if any(p.match(f) for p in patterns))
        return sorted(found)

    def read(self, relative, limit=READ_LIMIT):
        """The bytes of a regular file of at most `limit` bytes.

        A symlink (`loop`) or directory is refused; the host never opens a FIFO or device.
        """
        file = None
        try:
            file, mount = self._open(relative, OpenFlags(0))
            info = file.stat()
            if info.type != DescriptorType.REGULAR_FILE:
                raise CheckError(f"{relative}: not a regular file")
            if info.size > limit:
                raise CheckError(f"{relative}: {info.size} bytes, more than the {limit}-byte limit")
            # The whole file in one call: a byte more than its size is asked for (the host
            # allocates what is asked for), and a short read is the end. More calls only
            # if it grew meanwhile.
            chunks, total, want = [], 0, info.size + 1
            while True:
                want = min(want, limit + 1 - total)
                chunk, end = file.read(want, total)
                chunks.append(chunk)
                total += len(chunk)
                if total > limit:
                    raise CheckError(f"{relative}: more than the {limit}-byte limit")
                if end or len(chunk) < want:
                    return b"".join(chunks)
                want = 1 << 16
        except Err as e:
            raise CheckError(f"{relative}: {_code(e)}")
        finally:
            if file is not None and not mount:
                file.__exit__(None, None, None)

    def read_text(self, relative, limit=READ_LIMIT):
        """`read`, as UTF-8 text."""
        try:
            return self.read(relative, limit).decode("utf-8")
        except UnicodeDecodeError:
            raise CheckError(f"{relative}: not UTF-8 text")


def _code(err):
    """A WASI error code as WIT spells it: `no-entry`, `loop`, ..."""
    return getattr(err.value, "name", str(err.value)).lower().replace("_", "-")


def compile_glob(glob):
    """A glob (see `Root.files_matching`) as a compiled regular expression over whole paths."""
    body, end = _translate(glob, 0, False)
    if end != len(glob):
        raise CheckError(f"invalid glob {glob!r}: unexpected {glob[end]!r}")
    return re.compile(r"(?s:" + body + r")\Z")


def _translate(glob, i, in_braces):
    out = []
    while i < len(glob):
        c = glob[i]
        if in_braces and c in ",}":
            break
        if c == "*":
            whole = (i == 0 or glob[i - 1] == "/") and glob[i : i + 2] == "**"
            if whole and i + 2 == len(glob):  # `**`, `dir/**`: everything below
                out.append(".*")
                i += 2
            elif whole and glob[i + 2] == "/":  # `**/`: any number of directories, even none
                out.append("(?:.*/)?")
                i += 3
            else:
                out.append("[^/]*")
                while i < len(glob) and glob[i] == "*":
                    i += 1
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            close = glob.find("]", i + (3 if glob[i + 1 : i + 2] == "!" else 2))
            if close < 0:
                raise CheckError(f"invalid glob {glob!r}: unclosed '['")
            members = glob[i + 1 : close].replace("\\", "\\\\")
            out.append("(?!/)[" + ("^" + members[1:] if members.startswith("!") else members) + "]")
            i = close
        elif c == "{":
            alternatives = []
            while True:
                alternative, i = _translate(glob, i + 1, True)
                alternatives.append(alternative)
                if i >= len(glob):
                    raise CheckError(f"invalid glob {glob!r}: unclosed '{{'")
                if glob[i] == "}":
                    break
            out.append("(?:" + "|".join(alternatives) + ")")
        elif c == "\\" and i + 1 < len(glob):
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out), i


def _inside(path, directory):
    """Whether `path` is under `directory` ("" being the root)."""
    return path != directory and (directory == "" or path.startswith(directory + "/"))


def _base(glob):
    """The literal directories a glob starts with: where its matches can be."""
    parts = glob.strip("/").split("/")[:-1]
    literal = []
    for part in parts:
        if any(c in part for c in "*?[{\\"):
            break
        literal.append(part)
    return "/".join(literal)


def _close_imports():
    """Makes every `import` from now on fail unless the module is already loaded.

    componentize-py leaves CPython's path finder pointed at `/python`, `/world`, `/0`,
    `/1` and `/bundled`: the directories it read at build time. In the sandbox, `/` is
    the reviewed repository, so a module imported lazily (an `import` inside a function,
    a package's submodule, an encoding looked up by name) would be loaded from a file the
    repository planted there: its code would run in the validator and could forge the
    verdict. Emptying `sys.path` is not enough: a package's submodules are looked for in
    its own `__path__` (`/python/json` for `json.tool`). Dropping the path finder leaves
    only the built-in and frozen modules and those already imported when the component
    was built, so import everything at module level.

    It cannot run at import time: componentize-py still imports its own modules after
    the app module while it builds the component.
    """
    keep = ("BuiltinImporter", "FrozenImporter")
    sys.meta_path[:] = [f for f in sys.meta_path if getattr(f, "__name__", "") in keep]
    sys.path.clear()
    sys.path_hooks.clear()
    sys.path_importer_cache.clear()


def export(validate):
    """The class componentize-py exports as `reviewhost:check/validator`.

    `validate(id, config, root)` gets the assertion's `config` as Python data (`None`
    when absent) and returns a verdict (`passed`/`failed`). Raising `CheckError`, or
    any other exception, returns `err`: the host reports status `error`.
    """

    class Validator(exports.Validator):
        def validate(self, id, config):
            _close_imports()
            try:
                try:
                    data = json.loads(config)
                except ValueError as e:
                    raise CheckError(f"invalid config for '{id}': {e}")
                verdict = validate(id, data, Root())
                if not isinstance(verdict, Verdict):
                    raise CheckError(f"validate returned {type(verdict).__name__}, not a verdict")
                return verdict
            # Any exception other than `Err` would trap, and its message would be lost.
            except CheckError as e:
                raise Err(str(e))
            except ImportError as e:
                raise Err(f"{e} (nothing can be imported while validating: import at module level)")
            except Exception as e:
                raise Err(f"{type(e).__name__}: {e}")

    return Validator
