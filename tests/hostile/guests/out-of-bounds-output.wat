;; A C ABI guest whose `validate` answers a pointer/length past the end of its memory.
(module
  (memory (export "memory") 1)
  (data (i32.const 16) "{\"valid\":true}")
  (func (export "palisade_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "palisade_free") (param i32 i32))
  (func (export "configure") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 14)))
  (func (export "validate") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 65000) (i64.const 32)) (i64.const 4096))))
