// NAME: a reviewhost validator. Every file matching `config.files` contains `config.text`.
//
// Config: {"files": ["src/**/*.js"], "text": "SPDX-License-Identifier"}

import { CheckError, evidence, exportValidator, failed, passed } from './reviewhost_check.js';

function validate(_id, config, root) {
  const { files: globs, text } = config ?? {};
  if (!Array.isArray(globs) || typeof text !== 'string') {
    throw new CheckError('config needs "files" (a list of globs) and "text" (a string)');
  }
  const files = root.filesMatching(globs);
  if (files.length === 0) {
    throw new CheckError(`no file matches ${JSON.stringify(globs)}`);
  }
  const missing = files.filter((file) => !root.readText(file).includes(text));
  const quoted = JSON.stringify(text);
  if (missing.length === 0) {
    return passed(`all ${files.length} files contain ${quoted}`);
  }
  return failed(
    `${missing.length} of ${files.length} files lack ${quoted}`,
    missing.map((file) => evidence(file, 'missing')),
  );
}

// The component exports the module's `validator` as `reviewhost:check/validator`.
export const validator = exportValidator(validate);
