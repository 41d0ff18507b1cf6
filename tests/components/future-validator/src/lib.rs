//! Test component: exports `reviewhost:check/validator@9.0.0`. The host must refuse it
//! and say which version it expects.
#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({
        inline: "
            package reviewhost:check@9.0.0;
            interface types {
                record evidence { path: string, line: option<u32>, text: string }
                record verdict { passed: bool, message: string, evidence: list<evidence> }
            }
            interface validator {
                use types.{verdict};
                validate: func(id: string, config: string) -> result<verdict, string>;
            }
            world later { export validator; }
        ",
        world: "later",
    });

    struct Future;

    impl exports::reviewhost::check::validator::Guest for Future {
        fn validate(_id: String, _config: String) -> Result<exports::reviewhost::check::validator::Verdict, String> {
            Err("never called".into())
        }
    }

    export!(Future);
}
