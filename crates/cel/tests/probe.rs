use cel_core::*;
fn env_compile(s: &str) -> String {
    let env = Env::with_standard_library();
    match env.compile(s) { Ok(_) => "ok".into(), Err(e) => format!("{e}").chars().take(200).collect() }
}
fn try_it(kind: &str, n: usize, stack: usize) -> bool {
    let s = match kind { "paren" => format!("{}1{}", "(".repeat(n), ")".repeat(n)),
      "neg" => format!("{}1", "-".repeat(n)), "not" => format!("{}true", "!".repeat(n)),
      "add" => vec!["1"; n].join(" + "), "list" => format!("{}1{}", "[".repeat(n), "]".repeat(n)),
      "and" => vec!["true"; n].join(" && "), "member" => format!("x{}", ".a".repeat(n)), "tern" => format!("{}1", "true ? 1 : ".repeat(n)), _ => unreachable!() };
    std::thread::Builder::new().stack_size(stack).spawn(move || env_compile(&s)).unwrap().join().is_ok()
}
#[test]
fn probe() {
    let kind = std::env::var("KIND").unwrap();
    let n: usize = std::env::var("N").unwrap().parse().unwrap();
    println!("RESULT {kind} {n} {}", try_it(&kind, n, 1<<20));
}
