;; Decoder test: nested blocks, if/else, br_table, names (see test_wasm_decode.c).
(module $blocks
  (memory 1)
  (func $helper (param i32) (result i32)
    local.get 0)
  (func $main (export "main") (param $x i32) (result i32)
    (local $a i32) (local $b i64) (local $c i64)
    block $out                       ;; 0: block
      loop $top                      ;; 1: loop
        local.get $x                 ;; 2
        if                           ;; 3: if
          i32.const 1                ;; 4
          local.set $a               ;; 5
        else                         ;; 6: else
          i32.const 2                ;; 7
          local.set $a               ;; 8
        end                          ;; 9: end of if
        local.get $a                 ;; 10
        br_table $top $out $top      ;; 11: br_table [1 0] default 1
      end                            ;; 12: end of loop
      nop                            ;; 13
    end                              ;; 14: end of block
    local.get $a                     ;; 15
    call $helper                     ;; 16
  )                                  ;; 17: final end
)
