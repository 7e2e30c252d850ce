//! `palisade play`: serves the built playground (`target/playground/`, made by `npm run build:playground`) on
//! localhost. A tiny static file server on `std::net`: GET and HEAD, one file per request, MIME types the browser
//! needs (`application/wasm` for `WebAssembly.instantiateStreaming`), nothing outside the directory.

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

use anyhow::{Context as _, Result};

/// The directory `npm run build:playground` writes: `target/playground`, next to `target/wasm`.
pub fn default_dir() -> PathBuf {
    let wasm = crate::artifacts::wasm_dir();
    wasm.parent().map_or_else(
        || PathBuf::from("target/playground"),
        |t| t.join("playground"),
    )
}

/// The Content-Type of a file, by its extension.
pub fn mime_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "wasm" => "application/wasm",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        "yaml" | "yml" => "application/yaml",
        _ => "application/octet-stream",
    }
}

/// Binds `127.0.0.1:port` (0: any free port).
pub fn bind(port: u16) -> Result<TcpListener> {
    TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))
}

/// Serves `dir` forever, one thread per connection.
pub fn serve(listener: &TcpListener, dir: &Path) -> Result<()> {
    let root = dir
        .canonicalize()
        .with_context(|| format!("cannot open `{}`", dir.display()))?;
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let root = root.clone();
        std::thread::spawn(move || {
            // a client that goes away mid-answer is not our problem
            let _ = answer(stream, &root);
        });
    }
    Ok(())
}

/// The file a request path names under `root`, or `None` (outside it, or not a plain path).
fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let mut out = root.to_path_buf();
    for component in Path::new(path.trim_start_matches('/')).components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    Some(out)
}

fn answer(stream: TcpStream, root: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("");
    let target = parts.next().unwrap_or("/");
    let mut stream = stream;
    if method != "GET" && method != "HEAD" {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            b"GET or HEAD\n",
            true,
        );
    }
    let body_wanted = method == "GET";
    match resolve(root, target).and_then(|p| std::fs::read(&p).ok().map(|b| (p, b))) {
        Some((path, bytes)) => {
            respond(&mut stream, "200 OK", mime_type(&path), &bytes, body_wanted)
        }
        None => respond(
            &mut stream,
            "404 Not Found",
            "text/plain; charset=utf-8",
            b"not found\n",
            body_wanted,
        ),
    }
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
    with_body: bool,
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if with_body {
        stream.write_all(body)?;
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_types_and_paths() {
        assert_eq!(
            mime_type(Path::new("a/palisade_bg.wasm")),
            "application/wasm"
        );
        assert_eq!(
            mime_type(Path::new("index.html")),
            "text/html; charset=utf-8"
        );
        assert_eq!(
            mime_type(Path::new("app.js")),
            "text/javascript; charset=utf-8"
        );
        let root = Path::new("/srv");
        assert_eq!(resolve(root, "/../etc/passwd"), None);
        assert_eq!(
            resolve(root, "/app.js?x=1"),
            Some(PathBuf::from("/srv/app.js"))
        );
    }
}
