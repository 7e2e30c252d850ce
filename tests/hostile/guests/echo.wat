;; A well-behaved stand-in for palisade.wasm: `validate` answers a fixed allowed review with
;; uid "hostile-echo". Used to prove the host's happy path independently of the engine.
(module
  (memory (export "memory") 2)
  (data (i32.const 16) "{\"valid\":true}")
  (data (i32.const 64) "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\"hostile-echo\",\"allowed\":true}}")
  (func (export "palisade_alloc") (param i32) (result i32) (i32.const 4096))
  (func (export "palisade_free") (param i32 i32))
  (func (export "configure") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 14)))
  (func (export "validate") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 64) (i64.const 32)) (i64.const 110))))
