//! `palisade-wasi.wasm`: the WASI command (wasm32-wasip1), [`palisade::abi::wasi`].
fn main() -> std::process::ExitCode {
    palisade::abi::wasi::main()
}
