//! Hostile test component: a custom validator that imports `reviewhost:check/files`, the
//! whole-file reads and directory listings meant for built-in checks, and reads and lists
//! the path in its config. The
//! host links the interface for every component but answers a validator with a
//! refusal: a validator reads through WASI, within its `paths`.
#[cfg(target_arch = "wasm32")]
mod component {
    wit_bindgen::generate!({
        inline: "
            package reviewhost:check@0.1.0;
            interface types {
                record evidence { path: string, line: option<u32>, text: string }
                record verdict { passed: bool, message: string, evidence: list<evidence> }
            }
            interface files {
                variant read-error {
                    not-found, not-permitted, is-directory, not-directory, not-regular-file, too-large,
                    other(string),
                }
                read: func(path: string) -> result<list<u8>, read-error>;
                enum entry-kind { file, directory, symlink, other }
                record dir-entry { name: string, kind: entry-kind }
                list-dir: func(path: string) -> result<list<result<dir-entry, read-error>>, read-error>;
            }
            interface validator {
                use types.{verdict};
                validate: func(id: string, config: string) -> result<verdict, string>;
            }
            world files-validator { import files; export validator; }
        ",
        world: "files-validator",
    });

    struct FilesValidator;

    impl exports::reviewhost::check::validator::Guest for FilesValidator {
        fn validate(_id: String, config: String) -> Result<exports::reviewhost::check::validator::Verdict, String> {
            let path = config.trim_matches('"');
            let read = match reviewhost::check::files::read(path) {
                Ok(data) => format!("read {} bytes", data.len()),
                Err(e) => format!("refused {e:?}"),
            };
            let listed = match reviewhost::check::files::list_dir(".") {
                Ok(entries) => format!("listed {} entries", entries.len()),
                Err(e) => format!("refused {e:?}"),
            };
            let message = format!("{read}; {listed}");
            Ok(exports::reviewhost::check::validator::Verdict { passed: true, message, evidence: Vec::new() })
        }
    }

    export!(FilesValidator);
}
