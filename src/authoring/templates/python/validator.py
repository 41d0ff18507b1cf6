"""NAME: a reviewhost validator. Every file matching `config.files` contains `config.text`.

Config: {"files": ["src/**/*.py"], "text": "SPDX-License-Identifier"}

Import every module you need here, at the top: nothing can be imported while
`validate` runs (see `_close_imports` in reviewhost_check.py).
"""

import json

from reviewhost_check import CheckError, evidence, export, failed, passed


def validate(id, config, root):
    """One assertion: `config` is its `config` as Python data, `root` the repository."""
    if not isinstance(config, dict):
        raise CheckError(f'config must be an object like {{"files": [...], "text": "..."}}, not {config!r}')
    globs, text = config.get("files"), config.get("text")
    if not isinstance(globs, list) or not isinstance(text, str):
        raise CheckError('config needs "files" (a list of globs) and "text" (a string)')
    files = root.files_matching(globs)
    if not files:
        raise CheckError(f"no file matches {json.dumps(globs)}")
    missing = [f for f in files if text not in root.read_text(f)]
    quoted = json.dumps(text, ensure_ascii=False)
    if not missing:
        return passed(f"all {len(files)} files contain {quoted}")
    return failed(
        f"{len(missing)} of {len(files)} files lack {quoted}",
        [evidence(f, "missing") for f in missing],
    )


# componentize-py exports the class named `Validator` of the app module.
Validator = export(validate)
