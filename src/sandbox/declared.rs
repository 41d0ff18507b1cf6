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

use std::collections::{BTreeSet, HashSet};

use wasmparser::{
    ComponentAlias, ComponentExternalKind, ComponentOuterAliasKind, ComponentType, ComponentTypeRef, Encoding,
    Instance, InstanceTypeDeclaration, KnownCustom, Parser, Payload, TypeBounds,
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
    pub types_only: BTreeSet<String>,
    /// The names of its top-level exports (`reviewhost:check/validator@0.1.0`), in order.
    pub exports: Vec<String>,
    /// Bytes of linear memory the core modules it instantiates define at their start,
    /// summed over its instantiations: at least what it needs, so a `--memory` below it
    /// can never instantiate it. (Modules inside nested components are not counted.)
    pub initial_memory: u64,
    /// Its `producers` sections, as `field: name version` (`processed-by: componentize-py
    /// 0.25.1`), from every module and component inside it, without repeats; at most
    /// [`MAX_PRODUCERS`].
    pub producers: Vec<String>,
}

/// Producer entries kept: a toolchain writes a dozen. A hostile component may hold
/// millions, and reading them must stay linear and small.
pub const MAX_PRODUCERS: usize = 64;

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
        // The outer component's core module index space: the memory each module defines
        // (0 for one imported or aliased, unknown here, which keeps the sum a lower
        // bound), and the module whose sections are being read.
        let mut modules: Vec<u64> = Vec::new();
        let mut reading: Option<usize> = None;
        let mut producers_seen: HashSet<String> = HashSet::new();
        for payload in Parser::new(0).parse_all(wasm) {
            let payload = payload.map_err(|e| DeclaredError(e.to_string()))?;
            match payload {
                Payload::Version { encoding, .. } => {
                    depth += 1;
                    if depth == 1 {
                        outer_is_component = encoding == Encoding::Component;
                    }
                }
                Payload::End(_) => {
                    depth = depth.saturating_sub(1);
                    if depth <= 1 {
                        reading = None;
                    }
                }
                Payload::ModuleSection { .. } if depth == 1 => {
                    modules.push(0);
                    reading = Some(modules.len() - 1);
                }
                Payload::InstanceSection(reader) if depth == 1 => {
                    for instance in reader {
                        if let Instance::Instantiate { module_index, .. } =
                            instance.map_err(|e| DeclaredError(e.to_string()))?
                        {
                            let bytes = modules.get(module_index as usize).copied().unwrap_or(0);
                            declared.initial_memory = declared.initial_memory.saturating_add(bytes);
                        }
                    }
                }
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
                        if matches!(alias, ComponentAlias::Outer { kind: ComponentOuterAliasKind::CoreModule, .. }) {
                            modules.push(0);
                        }
                    }
                }
                Payload::ComponentImportSection(reader) if depth == 1 => {
                    for import in reader {
                        let import = import.map_err(|e| DeclaredError(e.to_string()))?;
                        let name = import.name.name.to_string();
                        match import.ty {
                            ComponentTypeRef::Type(_) => types.push(false),
                            ComponentTypeRef::Module(_) => modules.push(0),
                            ComponentTypeRef::Instance(index) if types.get(index as usize) == Some(&true) => {
                                declared.types_only.insert(name.clone());
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
                Payload::MemorySection(reader) if depth == 2 => {
                    let Some(module) = reading else { continue };
                    for memory in reader {
                        let memory = memory.map_err(|e| DeclaredError(e.to_string()))?;
                        let page = 1u64 << memory.page_size_log2.unwrap_or(16);
                        let bytes = memory.initial.saturating_mul(page);
                        modules[module] = modules[module].saturating_add(bytes);
                    }
                }
                Payload::CustomSection(section) if declared.producers.len() < MAX_PRODUCERS => {
                    if let KnownCustom::Producers(reader) = section.as_known() {
                        let values = reader
                            .into_iter()
                            .flatten()
                            .flat_map(|field| field.values.into_iter().flatten().map(move |value| (field.name, value)));
                        for (field, value) in values {
                            let entry = format!("{field}: {} {}", value.name, value.version).trim_end().to_string();
                            if producers_seen.insert(entry.clone()) {
                                declared.producers.push(entry);
                                if declared.producers.len() == MAX_PRODUCERS {
                                    break;
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
        linked(name) || self.types_only.contains(name)
    }

    /// Why the sandbox cannot link this component, with what to do about it, or `None`
    /// when every import is one it links.
    pub fn refusal(&self) -> Option<String> {
        let unlinked = self.unlinked();
        let first = unlinked.first()?;
        let mut reason = match unlinked.len() {
            1 => format!("it imports {first}, which the sandbox does not provide"),
            n if n <= 8 => format!("it imports {n} interfaces the sandbox does not provide: {}", unlinked.join(", ")),
            n => format!("it imports {n} interfaces the sandbox does not provide: {}, …", unlinked[..8].join(", ")),
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

    /// `bytes` as an unsigned LEB128.
    fn leb(mut n: usize) -> Vec<u8> {
        let mut out = Vec::new();
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            out.push(if n == 0 { byte } else { byte | 0x80 });
            if n == 0 {
                return out;
            }
        }
    }

    /// A section: its id, then its size and contents.
    fn section(id: u8, contents: &[u8]) -> Vec<u8> {
        [vec![id], leb(contents.len()), contents.to_vec()].concat()
    }

    fn name(text: &str) -> Vec<u8> {
        [leb(text.len()), text.as_bytes().to_vec()].concat()
    }

    const COMPONENT: &[u8] = b"\0asm\x0d\0\x01\0";

    /// A component holding a core module with one memory of `pages` pages, instantiated
    /// `instances` times.
    fn with_memory(pages: usize, instances: usize) -> Vec<u8> {
        let memory = section(5, &[leb(1), vec![0], leb(pages)].concat());
        let module = [b"\0asm\x01\0\0\0".to_vec(), memory].concat();
        let instantiate: Vec<u8> = (0..instances).flat_map(|_| [0u8, 0, 0]).collect();
        [COMPONENT.to_vec(), section(1, &module), section(2, &[leb(instances), instantiate].concat())].concat()
    }

    /// Memory counts once per instantiation of the module that defines it: a module
    /// never instantiated needs none (a hostile component added one of 5,000 pages to
    /// be refused for memory it would never use).
    #[test]
    fn memory_is_counted_per_instantiation() {
        let page = 64 * 1024;
        assert_eq!(Declared::read(&with_memory(5000, 0)).unwrap().initial_memory, 0);
        assert_eq!(Declared::read(&with_memory(3, 1)).unwrap().initial_memory, 3 * page);
        assert_eq!(Declared::read(&with_memory(3, 2)).unwrap().initial_memory, 6 * page);
    }

    /// A producers section of 200,000 distinct entries is read in linear time and kept
    /// to [`MAX_PRODUCERS`] (read into a list with a linear search for repeats, it held
    /// a run for minutes before any limit applied).
    #[test]
    fn producers_are_bounded() {
        let count = 200_000;
        let values: Vec<u8> = (0..count).flat_map(|i| [name(&format!("l{i}")), name("1")].concat()).collect();
        let field = [name("language"), leb(count), values].concat();
        let producers = section(0, &[name("producers"), leb(1), field].concat());
        let declared = Declared::read(&[COMPONENT.to_vec(), producers].concat()).unwrap();
        assert_eq!(declared.producers.len(), MAX_PRODUCERS);
        assert_eq!(declared.producers[0], "language: l0 1");
    }

    /// Usable when any exported version of the validator interface is compatible, as
    /// wasmtime's own lookup is.
    #[test]
    fn any_compatible_export_will_do() {
        let declared = Declared {
            exports: vec!["reviewhost:check/validator@9.0.0".into(), "reviewhost:check/validator@0.1.0".into()],
            ..Declared::default()
        };
        assert_eq!(super::super::component::usable_validator(&declared, 1 << 30), Ok(()));
    }

    #[test]
    fn a_core_module_and_garbage_are_refused() {
        assert!(Declared::read(b"\0asm\x01\0\0\0").unwrap_err().to_string().contains("core WebAssembly module"));
        assert!(Declared::read(b"not wasm").is_err());
    }
}
