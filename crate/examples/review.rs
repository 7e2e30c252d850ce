//! `cargo run -p palisade --example review -- BUNDLE.json REVIEW.json`: configure then validate, natively.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(bundle), Some(review)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: review BUNDLE.json REVIEW.json");
        std::process::exit(2);
    };
    let read = |p: &str| {
        std::fs::read_to_string(p).unwrap_or_else(|e| {
            eprintln!("{p}: {e}");
            std::process::exit(2)
        })
    };
    println!(
        "{}",
        palisade::api::review_json(&read(bundle), &read(review))
    );
}
