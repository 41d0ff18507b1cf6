//! The TypeScript and JavaScript validators: componentize-js 0.23.0 (StarlingMonkey),
//! after `tsc` for TypeScript, both pinned by `package-lock.json`.
//!
//! Built with `--disable http --disable fetch-event`: by default componentize-js imports
//! `wasi:http`, which the sandbox does not link. JavaScript has no file API of its own in
//! the component, so the world (`validator-files`) adds the `wasi:filesystem` imports the
//! helper reads the root with. One helper serves both languages: `reviewhost_check.js`,
//! with its types in `reviewhost_check.d.ts` for TypeScript.

use super::{Files, named, world_files};

const HELPER: &str = include_str!("../templates/js-common/reviewhost_check.js");
const HELPER_TYPES: &str = include_str!("../templates/js-common/reviewhost_check.d.ts");

/// One language's own files.
struct Template {
    validator: (&'static str, &'static str),
    package: &'static str,
    lock: &'static str,
    readme: &'static str,
    gitignore: &'static str,
    /// `tsconfig.json`, for TypeScript.
    tsconfig: Option<&'static str>,
}

const TYPESCRIPT: Template = Template {
    validator: ("src/validator.ts", include_str!("../templates/typescript/src/validator.ts")),
    package: include_str!("../templates/typescript/package.json"),
    lock: include_str!("../templates/typescript/package-lock.json"),
    readme: include_str!("../templates/typescript/README.md"),
    gitignore: include_str!("../templates/typescript/.gitignore"),
    tsconfig: Some(include_str!("../templates/typescript/tsconfig.json")),
};

const JAVASCRIPT: Template = Template {
    validator: ("src/validator.js", include_str!("../templates/javascript/src/validator.js")),
    package: include_str!("../templates/javascript/package.json"),
    lock: include_str!("../templates/javascript/package-lock.json"),
    readme: include_str!("../templates/javascript/README.md"),
    gitignore: include_str!("../templates/javascript/.gitignore"),
    tsconfig: None,
};

pub(super) fn files(name: &str, typescript: bool) -> Files {
    let template = if typescript { TYPESCRIPT } else { JAVASCRIPT };
    let (validator, source) = template.validator;
    let mut files: Files = vec![
        (validator.into(), named(source, name)),
        ("src/reviewhost_check.js".into(), HELPER.into()),
        ("package.json".into(), named(template.package, name)),
        ("package-lock.json".into(), template.lock.into()),
        ("README.md".into(), named(template.readme, name)),
        (".gitignore".into(), named(template.gitignore, name)),
    ];
    if let Some(tsconfig) = template.tsconfig {
        files.push(("tsconfig.json".into(), tsconfig.into()));
        files.push(("src/reviewhost_check.d.ts".into(), HELPER_TYPES.into()));
    }
    files.extend(world_files());
    files
}

/// The pinned toolchain from `package-lock.json`, then the build script.
pub(super) fn build(name: &str) -> String {
    format!("cd {name} && npm ci --no-audit --no-fund && npm run build")
}
