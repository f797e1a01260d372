;; fold_simd.wast - like fold.wast, for floats taken out of a vector the C
;; compiler can know (v128.const, splat of a constant): x*1, x/1, x-0,
;; -0-x on an extracted lane must still quiet a signalling NaN.  Run with
;; each back-end compiler by src/xlate/test/run.sh (make check-xlate).
(module
  (func (export "f64_mul_lane_one") (param f64) (result f64)
    (f64.mul (local.get 0) (f64x2.extract_lane 1 (v128.const f64x2 2 1))))
  (func (export "f32_div_lane_one") (param f32) (result f32)
    (f32.div (local.get 0) (f32x4.extract_lane 2 (v128.const f32x4 0 0 1 0))))
  (func (export "f32_sub_lane_zero") (param f32) (result f32)
    (f32.sub (local.get 0) (f32x4.extract_lane 0 (f32x4.splat (f32.const 0)))))
  (func (export "f64_negzero_sub_lane") (param f64) (result f64)
    (f64.sub (f64x2.extract_lane 0 (v128.const f64x2 -0 5)) (local.get 0)))
  (func (export "f64_mul_lane_neg_one") (param f64) (result f64)
    (f64.mul (local.get 0) (f64x2.extract_lane 0 (f64x2.splat (f64.const -1)))))
)
(assert_return (invoke "f64_mul_lane_one" (f64.const nan:0x4000000000000)) (f64.const nan:arithmetic))
(assert_return (invoke "f32_div_lane_one" (f32.const nan:0x200000)) (f32.const nan:arithmetic))
(assert_return (invoke "f32_sub_lane_zero" (f32.const nan:0x200000)) (f32.const nan:arithmetic))
(assert_return (invoke "f64_negzero_sub_lane" (f64.const nan:0x4000000000000)) (f64.const nan:arithmetic))
(assert_return (invoke "f64_mul_lane_neg_one" (f64.const nan:0x4000000000000)) (f64.const nan:arithmetic))
;; the barrier must not change ordinary results
(assert_return (invoke "f64_mul_lane_one" (f64.const 2.5)) (f64.const 2.5))
(assert_return (invoke "f32_div_lane_one" (f32.const -3)) (f32.const -3))
(assert_return (invoke "f64_negzero_sub_lane" (f64.const 0)) (f64.const -0))
