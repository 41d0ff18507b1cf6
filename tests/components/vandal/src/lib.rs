//! Hostile test component: tries everything a read-only, offline, empty-environment
//! sandbox must refuse, and reports each attempt. The verdict passes only when every
//! attempt was refused; the message lists `name=refused|SUCCEEDED` per attempt.
//!
//! The assertion gives it `"port"`: a loopback TCP port the test listens on.
use std::fs::{self, OpenOptions};
use std::io::Write;

use reviewhost_guest::{Check, Verdict};

pub struct Vandal;

fn field<'a>(json: &'a str, key: &str) -> Option<&'a str> {
    let rest = json.split(&format!("\"{key}\":")).nth(1)?;
    Some(rest.trim_start().split([',', '}']).next()?.trim().trim_matches('"'))
}

impl Check for Vandal {
    fn evaluate(assertion: &str) -> Result<Verdict, String> {
        let port: u16 = field(assertion, "port").and_then(|p| p.parse().ok()).unwrap_or(9);
        let attempts: Vec<(&str, bool)> = vec![
            ("create", fs::write("created-by-guest.txt", b"x").is_ok()),
            ("append", OpenOptions::new().append(true).open("victim.txt").and_then(|mut f| f.write_all(b"!")).is_ok()),
            ("truncate", OpenOptions::new().write(true).truncate(true).open("victim.txt").is_ok()),
            ("remove", fs::remove_file("victim.txt").is_ok()),
            ("rename", fs::rename("victim.txt", "renamed.txt").is_ok()),
            ("mkdir", fs::create_dir("new-dir").is_ok()),
            ("rmdir", fs::remove_dir("empty-dir").is_ok()),
            ("tcp", std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()),
            (
                "udp",
                std::net::UdpSocket::bind("127.0.0.1:0").and_then(|s| s.send_to(b"x", ("127.0.0.1", port))).is_ok(),
            ),
            ("dns", std::net::ToSocketAddrs::to_socket_addrs(&("localhost", 80)).is_ok()),
            ("env", std::env::vars().next().is_some()),
            ("args", std::env::args().nth(1).is_some()),
            ("stdin", std::io::read_to_string(std::io::stdin()).map(|s| !s.is_empty()).unwrap_or(false)),
            ("parent", fs::read_dir("..").is_ok()),
            ("outside", fs::read("../outside.txt").is_ok() || fs::read("/../outside.txt").is_ok()),
        ];
        let report: Vec<String> =
            attempts.iter().map(|(name, ok)| format!("{name}={}", if *ok { "SUCCEEDED" } else { "refused" })).collect();
        let passed = attempts.iter().all(|(_, ok)| !ok);
        Ok(Verdict { passed, message: report.join(" "), evidence: Vec::new() })
    }
}

reviewhost_guest::export_check!(Vandal);
