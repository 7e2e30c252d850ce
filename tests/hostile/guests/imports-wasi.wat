;; A guest that needs an import: the C ABI host provides none, so loading must fail cleanly.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1))
