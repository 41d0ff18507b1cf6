// The reviewhost side of a JavaScript validator: the root, globs, verdicts, the export.
//
// Inside the sandbox the repository root is `/`, read-only, and nothing else exists
// (or, when the assertion has `paths`, only those directories, each at `/<path>`).
// Every path this module hands out or takes is root-relative with `/` separators
// (`src/a.ts`), the form evidence wants.
//
// The engine has no file API of its own, so files are read through the WASI imports
// that wit/validator-files.wit adds to the world. The top level of every module runs once,
// at build time, into a snapshot: nothing here touches WASI before `validate` is called.

import { getDirectories } from 'wasi:filesystem/preopens@0.2.12';

/** Bytes `Root.read` returns at most unless told otherwise (the memory limit is 256 MiB). */
export const READ_LIMIT = 16 * 1024 * 1024;

/** Throw it to say "could not evaluate": the host reports status `error`, never a pass. */
export class CheckError extends Error {}

/** A verdict: the assertion holds. */
export function passed(message) {
  return { passed: true, message, evidence: [] };
}

/** A verdict: the assertion does not hold, with what was found. */
export function failed(message, evidence = []) {
  return { passed: false, message, evidence: [...evidence] };
}

/** One piece of evidence: a root-relative path, the text seen, a 1-based line if any. */
export function evidence(path, text, line) {
  return { path, line: line ?? undefined, text };
}

// Never follow a symlink in the last component of a path.
const NO_FOLLOW = { symlinkFollow: false };

/** The repository, as the WASI preopens show it. */
export class Root {
  #mounts;

  /** [descriptor, root-relative directory] of each mounted directory ('' is the root). */
  #mounted() {
    this.#mounts ??= getDirectories().map(([dir, name]) => [dir, trim(name)]);
    return this.#mounts;
  }

  /** The root-relative directories this check can see: [''] for the whole root. */
  visible() {
    const names = this.#mounted().map(([, name]) => name);
    return names.includes('') ? [''] : names.sort();
  }

  /** Opens a root-relative path; `dispose` it, unless `mount` says it is a mount. */
  #open(relative, directory) {
    const path = trim(relative);
    for (const [dir, name] of this.#mounted()) {
      if (name !== '' && path !== name && !path.startsWith(name + '/')) continue;
      const rest = name === '' ? path : path.slice(name.length + 1);
      if (rest === '') return { fd: dir, mount: true };
      const fd = dir.openAt(NO_FOLLOW, rest, { directory }, { read: true });
      return { fd, mount: false };
    }
    // Outside the directories the assertion's `paths` mounted.
    throw Object.assign(new Error('no-entry'), { payload: 'no-entry' });
  }

  /**
   * The regular files under `under` (root-relative, '.' for everything visible), sorted.
   *
   * A symlink is never followed, not even one that leads inside the root: a link is
   * neither a file nor a directory here, so a walk cannot loop or see a file twice.
   * Names starting with '.' ('.git', ...) are skipped unless `hidden`. `.gitignore` is
   * not read. A directory that does not exist has no files.
   */
  files(under = '.', { hidden = false } = {}) {
    const start = trim(under) === '.' ? '' : trim(under);
    const found = new Set();
    const pending = start === '' ? this.visible() : [start];
    const starts = new Set(pending);
    while (pending.length > 0) {
      const relative = pending.pop();
      let opened;
      try {
        opened = this.#open(relative, true);
      } catch (e) {
        if (starts.has(relative) && ['no-entry', 'not-directory'].includes(e.payload)) continue;
        throw new CheckError(`${relative || '/'}: cannot list: ${e.payload ?? e.message}`);
      }
      const stream = opened.fd.readDirectory();
      try {
        for (let entry; (entry = stream.readDirectoryEntry()) !== undefined; ) {
          if (!hidden && entry.name.startsWith('.')) continue;
          const path = relative ? `${relative}/${entry.name}` : entry.name;
          if (entry.type === 'directory') pending.push(path);
          else if (entry.type === 'regular-file') found.add(path);
        }
      } finally {
        // Handles are capped per check: release each one now, not when collected.
        stream[Symbol.dispose]();
        if (!opened.mount) opened.fd[Symbol.dispose]();
      }
    }
    return [...found].sort();
  }

  /**
   * The files whose root-relative path matches any of `globs`, sorted.
   *
   * Globs as in `.gitignore`: `*` and `?` do not cross '/', `**` is any number of
   * directories (`src/**\/*.ts`, `**\/*.json`), plus `[abc]` and `{ts,tsx}`. Only the
   * directory each glob starts with ('src' for `src/**\/*.ts`) is walked.
   */
  filesMatching(globs, options = {}) {
    if (!Array.isArray(globs) || !globs.every((g) => typeof g === 'string')) {
      throw new CheckError(`globs must be a list of strings, not ${JSON.stringify(globs)}`);
    }
    const patterns = globs.map(compileGlob);
    const bases = [...new Set(globs.map(base))];
    const found = new Set();
    // A base inside another one is walked with it.
    const inside = (path, dir) => path !== dir && (dir === '' || path.startsWith(dir + '/'));
    for (const b of bases.filter((b) => !bases.some((o) => inside(b, o)))) {
      for (const file of this.files(b, options)) {
        if (patterns.some((p) => p.test(file))) found.add(file);
      }
    }
    return [...found].sort();
  }

  /**
   * The bytes (a Uint8Array) of a regular file of at most `limit` bytes. A symlink or
   * directory is refused; the host never opens a FIFO or device.
   */
  read(relative, limit = READ_LIMIT) {
    let opened;
    try {
      opened = this.#open(relative, false);
      const stat = opened.fd.stat();
      if (stat.type !== 'regular-file') throw new CheckError(`${relative}: not a regular file`);
      if (stat.size > BigInt(limit)) {
        throw new CheckError(`${relative}: ${stat.size} bytes, more than the ${limit}-byte limit`);
      }
      // The whole file in one call: a byte more than its size is asked for (the host
      // allocates what is asked for), and a short read is the end. More calls only if it
      // grew meanwhile.
      const chunks = [];
      let total = 0;
      let want = Number(stat.size) + 1;
      for (;;) {
        want = Math.min(want, limit + 1 - total);
        const [chunk, end] = opened.fd.read(BigInt(want), BigInt(total));
        chunks.push(chunk);
        total += chunk.length;
        if (total > limit) throw new CheckError(`${relative}: more than the ${limit}-byte limit`);
        if (end || chunk.length < want) break;
        want = 1 << 16;
      }
      if (chunks.length === 1) return chunks[0];
      const bytes = new Uint8Array(total);
      let at = 0;
      for (const chunk of chunks) bytes.set(chunk, (at += chunk.length) - chunk.length);
      return bytes;
    } catch (e) {
      if (e instanceof CheckError) throw e;
      // 'loop': the path is a symlink.
      throw new CheckError(`${relative}: ${e.payload ?? e.message}`);
    } finally {
      if (opened && !opened.mount) opened.fd[Symbol.dispose]();
    }
  }

  /** `read`, as UTF-8 text. */
  readText(relative, limit = READ_LIMIT) {
    const bytes = this.read(relative, limit);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new CheckError(`${relative}: not UTF-8 text`);
    }
  }
}

/** A glob (see `Root.filesMatching`) as a RegExp over whole root-relative paths. */
export function compileGlob(glob) {
  const [body, end] = translate(glob, 0, false);
  if (end !== glob.length) throw new CheckError(`invalid glob '${glob}': unexpected '${glob[end]}'`);
  return new RegExp(`^(?:${body})$`, 's');
}

function translate(glob, i, inBraces) {
  let out = '';
  while (i < glob.length) {
    const c = glob[i];
    if (inBraces && (c === ',' || c === '}')) break;
    if (c === '*') {
      const whole = (i === 0 || glob[i - 1] === '/') && glob.startsWith('**', i);
      if (whole && i + 2 === glob.length) {
        out += '.*'; // `**`, `dir/**`: everything below
        i += 2;
      } else if (whole && glob[i + 2] === '/') {
        out += '(?:.*/)?'; // `**/`: any number of directories, even none
        i += 3;
      } else {
        out += '[^/]*';
        while (glob[i] === '*') i++;
      }
      continue;
    }
    if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const close = glob.indexOf(']', i + (glob[i + 1] === '!' ? 3 : 2));
      if (close < 0) throw new CheckError(`invalid glob '${glob}': unclosed '['`);
      let members = glob.slice(i + 1, close).replace(/[\\\]]/g, '\\$&');
      if (members.startsWith('!')) members = '^' + members.slice(1);
      out += `(?!/)[${members}]`;
      i = close;
    } else if (c === '{') {
      const alternatives = [];
      for (;;) {
        let alternative;
        [alternative, i] = translate(glob, i + 1, true);
        alternatives.push(alternative);
        if (i >= glob.length) throw new CheckError(`invalid glob '${glob}': unclosed '{'`);
        if (glob[i] === '}') break;
      }
      out += `(?:${alternatives.join('|')})`;
    } else if (c === '\\' && i + 1 < glob.length) {
      out += escape(glob[++i]);
    } else {
      out += escape(c);
    }
    i++;
  }
  return [out, i];
}

/** The literal directories a glob starts with: where its matches can be. */
function base(glob) {
  const parts = trim(glob).split('/').slice(0, -1);
  const cut = parts.findIndex((part) => /[*?[{\\]/.test(part));
  return (cut < 0 ? parts : parts.slice(0, cut)).join('/');
}

function trim(path) {
  return path.replace(/^\/+|\/+$/g, '');
}

function escape(c) {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * What the module exports as `validator` (`reviewhost:check/validator`).
 *
 * `validate(id, config, root)` gets the assertion's `config` parsed (`null` when
 * absent) and returns a verdict (`passed`/`failed`). Throwing a `CheckError`, or
 * anything else, returns `err`: the host reports status `error`.
 */
export function exportValidator(validate) {
  return {
    validate(id, configText) {
      try {
        let config;
        try {
          config = JSON.parse(configText);
        } catch (e) {
          throw new CheckError(`invalid config for '${id}': ${e.message}`);
        }
        const verdict = validate(id, config, new Root());
        if (typeof verdict?.passed !== 'boolean' || typeof verdict.message !== 'string') {
          throw new CheckError(`validate returned ${JSON.stringify(verdict)}, not a verdict`);
        }
        return verdict;
      } catch (e) {
        // componentize-js returns a thrown string as `err`, but traps on a thrown Error
        // (and the message is lost).
        throw e instanceof CheckError ? e.message : `${e?.name ?? 'Error'}: ${e?.message ?? e}`;
      }
    },
  };
}
