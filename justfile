# Palisade recipes: thin wrappers over cargo. Bare `just` lists them.

default:
    @just --list

# Build the harness and every wasm artifact (target/wasm/*.wasm, target/release/palisade)
build:
    cargo build --release -p palisade-harness

# Run every case file through the built palisade.wasm (the README's first command)
cases: build
    target/release/palisade test tests/cases

# Run the same cases through palisade-kubewarden.wasm in the waPC host
cases-kubewarden: build
    target/release/palisade test --kubewarden tests/cases

# All tests (the README's second command)
test:
    npm ci --no-audit --no-fund && cargo test --workspace --release

# The browser playground: build the page (target/playground) and serve it on localhost
play: build
    npm ci --no-audit --no-fund && npm run build:playground
    target/release/palisade play

# The playground's browser tests in chromium (needs /usr/bin/chromium: apt-get install -y chromium)
test-playground: build
    npm ci --no-audit --no-fund && npm run build:playground && npm test

# Benchmarks: pod-baseline in wasmtime with both floors, then the criterion benches
bench: build
    target/release/palisade bench -p bench/pod-baseline.yaml bench/pod-review.json
    target/release/palisade bench --kubewarden -p bench/pod-baseline.yaml bench/pod-review.json
    cargo bench -p palisade-matching

# Palisade's fresh path side by side with ferricel's (bench/ferricel: builds ferricel from crates.io; issue 12)
ferricel: build
    cargo run --release --manifest-path bench/ferricel/Cargo.toml -- -p bench/pod-baseline.yaml bench/pod-review.json
    cargo run --release --manifest-path bench/ferricel/Cargo.toml -- -p bench/pod-baseline.yaml bench/pod-review.json --request whole

# Artifact sizes, raw and gzip -9
wasm: build
    @for f in target/wasm/*.wasm; do printf '%-45s %8d bytes  %8d gzip\n' "$f" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"; done

# Exactly what CI runs
ci:
    bash .ci/run
