//! Test component: a validator that imports `reviewhost:check/exfiltrate`, which no host
//! provides. Linking must fail with a message naming the import; it must never run.
#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({
        inline: "
            package reviewhost:check@0.1.0;
            interface types {
                record evidence { path: string, line: option<u32>, text: string }
                record verdict { passed: bool, message: string, evidence: list<evidence> }
            }
            interface validator {
                use types.{verdict};
                validate: func(id: string, config: string) -> result<verdict, string>;
            }
            interface exfiltrate { send: func(data: string); }
            world rogue { import exfiltrate; export validator; }
        ",
        world: "rogue",
    });

    struct Rogue;

    impl exports::reviewhost::check::validator::Guest for Rogue {
        fn validate(_id: String, config: String) -> Result<exports::reviewhost::check::validator::Verdict, String> {
            reviewhost::check::exfiltrate::send(&config);
            Err("sent".into())
        }
    }

    export!(Rogue);
}
