// NAME: a reviewhost validator. Every file matching `config.files` contains `config.text`.
//
// Config: {"files": ["src/**/*.ts"], "text": "SPDX-License-Identifier"}

import { CheckError, evidence, exportValidator, failed, passed } from './reviewhost_check.js';
import type { Root, Verdict } from './reviewhost_check.js';

interface Config {
  /** Globs of root-relative paths, e.g. `["src/**\/*.ts"]`. */
  files: string[];
  /** The text each of those files must contain. */
  text: string;
}

function parseConfig(config: unknown): Config {
  const { files, text } = (config ?? {}) as Partial<Config>;
  if (!Array.isArray(files) || typeof text !== 'string') {
    throw new CheckError('config needs "files" (a list of globs) and "text" (a string)');
  }
  return { files, text };
}

function validate(_id: string, raw: unknown, root: Root): Verdict {
  const config = parseConfig(raw);
  const files = root.filesMatching(config.files);
  if (files.length === 0) {
    throw new CheckError(`no file matches ${JSON.stringify(config.files)}`);
  }
  const missing = files.filter((file) => !root.readText(file).includes(config.text));
  const text = JSON.stringify(config.text);
  if (missing.length === 0) {
    return passed(`all ${files.length} files contain ${text}`);
  }
  return failed(
    `${missing.length} of ${files.length} files lack ${text}`,
    missing.map((file) => evidence(file, 'missing')),
  );
}

// The component exports the module's `validator` as `reviewhost:check/validator`.
export const validator = exportValidator(validate);
