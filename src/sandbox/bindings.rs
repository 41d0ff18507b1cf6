//! Host bindings to the WIT worlds of `wit/`: `builtin-check`, which the checks built
//! into the binary implement (and whose `files` interface the host provides),
//! `custom-validator`, which a custom validator implements, and `program-client`, the
//! `programs` interface the shell check built with grants imports.

pub mod builtin {
    wasmtime::component::bindgen!({ path: "wit", world: "builtin-check" });
}
pub mod validator {
    wasmtime::component::bindgen!({ path: "wit", world: "custom-validator" });
}
pub mod programs {
    wasmtime::component::bindgen!({ path: "wit", world: "program-client" });
}
