//! What a component declares, read from its bytes without compiling it: its imports and
//! exports, the linear memory it starts with, and who built it.
//!
//! Compiling a Python or JavaScript validator takes 15-20 s of Cranelift; linking then
//! fails if it imports what the sandbox does not provide (componentize-js imports
//! `wasi:http` unless told not to). Reading the component's sections takes a few
//! milliseconds, so [`Sandbox::load_validator`](super::Sandbox::load_validator) refuses
//! such a component before compiling, with the interface named and the fix for the
//! toolchains this is known of. `reviewhost inspect` prints the same facts for authors.
//!
//! The refusal answers only for what it can prove: an import whose package and interface
//! the sandbox does not link at all. Anything else (a version the linker may not accept,
//! a type that differs) is left to wasmtime's own type check after compiling.

use wasmparser::{
    ComponentAlias, ComponentExternalKind, ComponentOuterAliasKind, ComponentType, ComponentTypeRef, Encoding,
    InstanceTypeDeclaration, KnownCustom, Parser, Payload, TypeBounds,
};

/// The WASI 0.2 interfaces every check is linked with (`wasmtime_wasi::p2::add_to_linker_sync`),
/// by package. wasmtime resolves any 0.2.x import against its 0.2 definitions.
const WASI_0_2: &[(&str, &[&str])] = &[
    (
        "wasi:cli",
        &[
            "environment",
            "exit",
            "stdin",
            "stdout",
            "stderr",
            "terminal-input",
            "terminal-output",
            "terminal-stdin",
            "terminal-stdout",
            "terminal-stderr",
        ],
    ),
    ("wasi:clocks", &["monotonic-clock", "wall-clock"]),
    ("wasi:filesystem", &["types", "preopens"]),
    ("wasi:io", &["error", "poll", "streams"]),
    ("wasi:random", &["random", "insecure", "insecure-seed"]),
    (
        "wasi:sockets",
        &["network", "instance-network", "ip-name-lookup", "tcp", "tcp-create-socket", "udp", "udp-create-socket"],
    ),
];

/// The host's own interface every check is linked with (`programs` is linked only for
/// the built-in shell check of a run with grants).
const HOST_FILES: (&str, &str, &str) = ("reviewhost:check", "files", "0.1");

/// What a component declares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Declared {
    /// The names of its top-level imports (`wasi:io/streams@0.2.3`), in order.
    pub imports: Vec<String>,
    /// The imports that are instances of types alone (no function, no resource): they
    /// need no definition, so any linker satisfies them (`reviewhost:check/types`).
    pub types_only: Vec<String>,
    /// The names of its top-level exports (`reviewhost:check/validator@0.1.0`), in order.
    pub exports: Vec<String>,
    /// Bytes of linear memory its core modules define at their start, summed: the
    /// least `--memory` under which it can be instantiated at all.
    pub initial_memory: u64,
    /// Its `producers` section, as `field: name version` (`processed-by: componentize-py
    /// 0.25.1`), from every module and component inside it, without repeats.
    pub producers: Vec<String>,
}

/// Why a component's sections could not be read.
#[derive(Debug, thiserror::Error)]
#[error("not a valid component: {0}")]
pub struct DeclaredError(String);

impl Declared {
    /// Reads what `wasm`, a component, declares. Nothing is validated beyond what
    /// reading the sections needs; wasmtime validates when it compiles.
    pub fn read(wasm: &[u8]) -> Result<Declared, DeclaredError> {
        let mut declared = Declared::default();
        // Nesting: 1 inside the outer component, more inside the modules and components
        // it holds. Only the outer component's imports and exports are the component's.
        let mut depth = 0usize;
        let mut outer_is_component = false;
        // The outer component's type index space, as far as it matters here: for each
        // type, whether it is an instance type of types alone. An index this loses track
        // of is at worst taken for one that is not, which only leaves a refusal to
        // wasmtime's own check after compiling.
        let mut types: Vec<bool> = Vec::new();
        for payload in Parser::new(0).parse_all(wasm) {
            let payload = payload.map_err(|e| DeclaredError(e.to_string()))?;
            match payload {
                Payload::Version { encoding, .. } => {
                    depth += 1;
                    if depth == 1 {
                        outer_is_component = encoding == Encoding::Component;
                    }
                }
                Payload::End(_) => depth = depth.saturating_sub(1),
                Payload::ComponentTypeSection(reader) if depth == 1 => {
                    for ty in reader {
                        let ty = ty.map_err(|e| DeclaredError(e.to_string()))?;
                        types.push(matches!(&ty, ComponentType::Instance(decls) if decls.iter().all(declares_no_item)));
                    }
                }
                Payload::ComponentAliasSection(reader) if depth == 1 => {
                    for alias in reader {
                        let alias = alias.map_err(|e| DeclaredError(e.to_string()))?;
                        if adds_a_type(&alias) {
                            types.push(false);
                        }
                    }
                }
                Payload::ComponentImportSection(reader) if depth == 1 => {
                    for import in reader {
                        let import = import.map_err(|e| DeclaredError(e.to_string()))?;
                        let name = import.name.name.to_string();
                        match import.ty {
                            ComponentTypeRef::Type(_) => types.push(false),
                            ComponentTypeRef::Instance(index) if types.get(index as usize) == Some(&true) => {
                                declared.types_only.push(name.clone());
                            }
                            _ => {}
                        }
                        declared.imports.push(name);
                    }
                }
                Payload::ComponentExportSection(reader) if depth == 1 => {
                    for export in reader {
                        let export = export.map_err(|e| DeclaredError(e.to_string()))?;
                        if export.kind == ComponentExternalKind::Type {
                            types.push(false);
                        }
                        declared.exports.push(export.name.name.to_string());
                    }
                }
                Payload::MemorySection(reader) => {
                    for memory in reader {
                        let memory = memory.map_err(|e| DeclaredError(e.to_string()))?;
                        let page = 1u64 << memory.page_size_log2.unwrap_or(16);
                        let bytes = memory.initial.saturating_mul(page);
                        declared.initial_memory = declared.initial_memory.saturating_add(bytes);
                    }
                }
                Payload::CustomSection(section) => {
                    if let KnownCustom::Producers(reader) = section.as_known() {
                        for field in reader.into_iter().flatten() {
                            for value in field.values.into_iter().flatten() {
                                let entry = format!("{}: {} {}", field.name, value.name, value.version);
                                let entry = entry.trim_end().to_string();
                                if !declared.producers.contains(&entry) {
                                    declared.producers.push(entry);
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        if !outer_is_component {
            return Err(DeclaredError("a core WebAssembly module, not a component".into()));
        }
        Ok(declared)
    }

    /// The imports the sandbox certainly does not link ([`linked`]), leaving out those
    /// that need no definition.
    pub fn unlinked(&self) -> Vec<&str> {
        self.imports.iter().map(String::as_str).filter(|import| !self.provided(import)).collect()
    }

    /// Whether the sandbox satisfies the import `name` of this component.
    pub fn provided(&self, name: &str) -> bool {
        linked(name) || self.types_only.iter().any(|t| t == name)
    }

    /// Why the sandbox cannot link this component, with what to do about it, or `None`
    /// when every import is one it links.
    pub fn refusal(&self) -> Option<String> {
        let unlinked = self.unlinked();
        let first = unlinked.first()?;
        let mut reason = match unlinked.len() {
            1 => format!("it imports {first}, which the sandbox does not provide"),
            n => format!("it imports {n} interfaces the sandbox does not provide: {}", unlinked.join(", ")),
        };
        reason.push_str("; ");
        reason.push_str(&self.fix(&unlinked));
        Some(reason)
    }

    /// What to do about `unlinked` imports, for the toolchains this is known of.
    fn fix(&self, unlinked: &[&str]) -> String {
        // componentize-js's output names no producer of its own, so the fix is given for
        // any HTTP import.
        if unlinked.iter().any(|i| i.starts_with("wasi:http/")) {
            return "checks have no network; componentize-js imports wasi:http unless built with \
                    `--disable http --disable fetch-event`"
                .into();
        }
        if unlinked.iter().any(|i| i.starts_with("reviewhost:check/programs")) {
            return "only the built-in shell check may run host programs".into();
        }
        "a check is linked with WASI 0.2 (cli, clocks, filesystem, io, random, sockets, all without network) \
         and nothing else"
            .into()
    }
}

/// Whether an instance type's declaration leaves nothing to define: a type equal to
/// another (a record, a variant) or a core type, but no function, resource or value.
fn declares_no_item(declaration: &InstanceTypeDeclaration<'_>) -> bool {
    match declaration {
        InstanceTypeDeclaration::CoreType(_) | InstanceTypeDeclaration::Alias(_) => true,
        InstanceTypeDeclaration::Type(ty) => !matches!(ty, ComponentType::Resource { .. }),
        InstanceTypeDeclaration::Export { ty, .. } => matches!(ty, ComponentTypeRef::Type(TypeBounds::Eq(_))),
    }
}

/// Whether `alias` adds to the component's type index space.
fn adds_a_type(alias: &ComponentAlias<'_>) -> bool {
    match alias {
        ComponentAlias::InstanceExport { kind, .. } => *kind == ComponentExternalKind::Type,
        ComponentAlias::Outer { kind, .. } => *kind == ComponentOuterAliasKind::Type,
        ComponentAlias::CoreInstanceExport { .. } => false,
    }
}

/// Whether the sandbox links the import named `name` (`package/interface@version`):
/// `false` only when its package and interface are not linked at all, or it is a WASI
/// interface of another major version line than 0.2.
pub fn linked(name: &str) -> bool {
    let (path, version) = name.split_once('@').unwrap_or((name, ""));
    let Some((package, interface)) = path.split_once('/') else {
        // A plain function or instance name: never defined by the sandbox.
        return false;
    };
    if let Some((_, interfaces)) = WASI_0_2.iter().find(|(p, _)| *p == package) {
        return interfaces.contains(&interface) && (version.is_empty() || version.starts_with("0.2."));
    }
    let (host_package, host_interface, host_version) = HOST_FILES;
    package == host_package
        && interface == host_interface
        && (version.is_empty() || version == host_version || version.starts_with(&format!("{host_version}.")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wasi_0_2_and_the_host_files_are_linked_and_nothing_else() {
        for name in [
            "wasi:io/streams@0.2.0",
            "wasi:io/streams@0.2.9",
            "wasi:filesystem/preopens@0.2.3",
            "wasi:cli/terminal-stderr@0.2.6",
            "wasi:sockets/tcp@0.2.0",
            "reviewhost:check/files@0.1.0",
        ] {
            assert!(linked(name), "{name}");
        }
        for name in [
            "wasi:http/types@0.2.3",
            "wasi:http/outgoing-handler@0.2.0",
            "wasi:io/streams@0.3.0",
            "wasi:clocks/timezone@0.2.0",
            "wasi:keyvalue/store@0.2.0",
            "reviewhost:check/programs@0.1.0",
            "reviewhost:check/files@0.2.0",
            "env",
        ] {
            assert!(!linked(name), "{name}");
        }
    }

    #[test]
    fn an_http_import_is_refused_with_the_fix_for_componentize_js() {
        let mut declared = Declared {
            imports: vec!["wasi:io/streams@0.2.3".into(), "wasi:http/types@0.2.3".into()],
            ..Declared::default()
        };
        let refusal = declared.refusal().unwrap();
        assert!(refusal.starts_with("it imports wasi:http/types@0.2.3, which the sandbox does not provide"));
        assert!(refusal.contains("--disable http --disable fetch-event"), "{refusal}");
        declared.imports = vec!["wasi:io/streams@0.2.3".into()];
        assert_eq!(declared.refusal(), None);
    }

    #[test]
    fn a_core_module_and_garbage_are_refused() {
        assert!(Declared::read(b"\0asm\x01\0\0\0").unwrap_err().to_string().contains("core WebAssembly module"));
        assert!(Declared::read(b"not wasm").is_err());
    }
}
