#[test]
fn scratch() {
    let data = std::fs::read("/tmp/min/best").unwrap();
    let text = String::from_utf8_lossy(&data);
    let t = std::time::Instant::now();
    let r = reviewhost_check_shell::parse::parse(&text);
    eprintln!("{:?} in {:?}", r.map(|_| ()), t.elapsed());
}
