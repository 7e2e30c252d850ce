//! `palisade play` serves a directory on localhost with the MIME types a browser needs (`application/wasm` for
//! `WebAssembly.instantiateStreaming`), nothing outside it, and says where. The page itself is tested in chromium by
//! `npm test` (playground/tests/).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::process::{Command, Stdio};

fn get(address: &str, path: &str) -> (String, String, Vec<u8>) {
    let mut stream = TcpStream::connect(address).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n").unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let status = head.lines().next().unwrap().to_owned();
    let content_type = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Type: "))
        .unwrap_or("")
        .to_owned();
    (status, content_type, raw[split + 4..].to_vec())
}

#[test]
fn serves_the_page_with_its_mime_types() {
    let dir = std::env::temp_dir().join(format!("palisade-play-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html>").unwrap();
    std::fs::write(dir.join("app.js"), "export {}").unwrap();
    std::fs::write(dir.join("sub/m.wasm"), b"\0asm\x01\0\0\0").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_palisade"))
        .args(["play", "--port", "0", "--dir"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .split("http://")
        .nth(1)
        .unwrap()
        .trim()
        .trim_end_matches('/')
        .to_owned();

    let (status, mime, body) = get(&address, "/");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(mime, "text/html; charset=utf-8");
    assert_eq!(body, b"<!doctype html>");
    assert_eq!(
        get(&address, "/app.js?v=1").1,
        "text/javascript; charset=utf-8"
    );
    let (_, mime, body) = get(&address, "/sub/m.wasm");
    assert_eq!(mime, "application/wasm");
    assert_eq!(body, b"\0asm\x01\0\0\0");
    assert_eq!(get(&address, "/missing").0, "HTTP/1.1 404 Not Found");
    assert_eq!(get(&address, "/../Cargo.toml").0, "HTTP/1.1 404 Not Found");

    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_a_built_page_it_says_how_to_build_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_palisade"))
        .args([
            "play",
            "--port",
            "0",
            "--dir",
            "/nonexistent-palisade-playground",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("npm run build:playground"), "{stderr}");
}
