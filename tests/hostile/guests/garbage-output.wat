;; A C ABI guest whose `validate` answers bytes that are not UTF-8 (0xff 0xfe) and whose
;; `configure` answers text that is not JSON.
(module
  (memory (export "memory") 2)
  (data (i32.const 16) "not json at all")
  (data (i32.const 64) "\ff\fe{}")
  (func (export "palisade_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "palisade_free") (param i32 i32))
  (func (export "configure") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 15)))
  (func (export "validate") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 64) (i64.const 32)) (i64.const 4))))
