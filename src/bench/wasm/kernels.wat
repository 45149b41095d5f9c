;; numakit bench mem's kernels, on one shared memory that every worker thread imports.
;; Offsets and lengths are bytes; loops run while p < end, unsigned, so a memory of up to
;; 4 GiB - 64 KiB works. Compiled by scripts/build-wasm.mjs into kernels_wasm.ts.
(module
  (import "env" "memory" (memory 1 65535 shared))

  ;; read: the sum of [p, p+n) as 64-bit lanes, n a multiple of 128. Eight 16-byte loads a
  ;; turn into four accumulators keep enough loads in flight to saturate a core's memory path.
  (func (export "read") (param $p i32) (param $n i32) (result i64)
    (local $end i32) (local $a v128) (local $b v128) (local $c v128) (local $d v128)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (if (i32.lt_u (local.get $p) (local.get $end))
      (then
        (loop $l
          (local.set $a (i64x2.add (local.get $a) (v128.load offset=0 (local.get $p))))
          (local.set $b (i64x2.add (local.get $b) (v128.load offset=16 (local.get $p))))
          (local.set $c (i64x2.add (local.get $c) (v128.load offset=32 (local.get $p))))
          (local.set $d (i64x2.add (local.get $d) (v128.load offset=48 (local.get $p))))
          (local.set $a (i64x2.add (local.get $a) (v128.load offset=64 (local.get $p))))
          (local.set $b (i64x2.add (local.get $b) (v128.load offset=80 (local.get $p))))
          (local.set $c (i64x2.add (local.get $c) (v128.load offset=96 (local.get $p))))
          (local.set $d (i64x2.add (local.get $d) (v128.load offset=112 (local.get $p))))
          (local.set $p (i32.add (local.get $p) (i32.const 128)))
          (br_if $l (i32.lt_u (local.get $p) (local.get $end))))))
    (local.set $a (i64x2.add (i64x2.add (local.get $a) (local.get $b)) (i64x2.add (local.get $c) (local.get $d))))
    (i64.add (i64x2.extract_lane 0 (local.get $a)) (i64x2.extract_lane 1 (local.get $a))))

  ;; write: memory.fill, which V8 runs as memset(3) (large fills: non-temporal stores).
  (func (export "fill") (param $p i32) (param $n i32) (param $byte i32)
    (memory.fill (local.get $p) (local.get $byte) (local.get $n)))

  ;; copy: memory.copy, which V8 runs as memmove(3).
  (func (export "copy") (param $dst i32) (param $src i32) (param $n i32)
    (memory.copy (local.get $dst) (local.get $src) (local.get $n)))

  ;; triad: a[i] = b[i] + x * c[i] over n bytes of f64, n a multiple of 64.
  (func (export "triad") (param $a i32) (param $b i32) (param $c i32) (param $n i32) (param $x f64)
    (local $end i32) (local $s v128)
    (local.set $s (f64x2.splat (local.get $x)))
    (local.set $end (i32.add (local.get $a) (local.get $n)))
    (if (i32.lt_u (local.get $a) (local.get $end))
      (then
        (loop $l
          (v128.store offset=0 (local.get $a) (f64x2.add (v128.load offset=0 (local.get $b)) (f64x2.mul (local.get $s) (v128.load offset=0 (local.get $c)))))
          (v128.store offset=16 (local.get $a) (f64x2.add (v128.load offset=16 (local.get $b)) (f64x2.mul (local.get $s) (v128.load offset=16 (local.get $c)))))
          (v128.store offset=32 (local.get $a) (f64x2.add (v128.load offset=32 (local.get $b)) (f64x2.mul (local.get $s) (v128.load offset=32 (local.get $c)))))
          (v128.store offset=48 (local.get $a) (f64x2.add (v128.load offset=48 (local.get $b)) (f64x2.mul (local.get $s) (v128.load offset=48 (local.get $c)))))
          (local.set $a (i32.add (local.get $a) (i32.const 64)))
          (local.set $b (i32.add (local.get $b) (i32.const 64)))
          (local.set $c (i32.add (local.get $c) (i32.const 64)))
          (br_if $l (i32.lt_u (local.get $a) (local.get $end)))))))

  ;; chase: follows count links (u32 byte offsets) from p and returns where it stopped;
  ;; count a multiple of 16. Each load's address is the previous load's value.
  (func (export "chase") (param $p i32) (param $count i32) (result i32)
    (block $done
      (loop $l
        (br_if $done (i32.le_s (local.get $count) (i32.const 0)))
        (local.set $p (i32.load (local.get $p))) (local.set $p (i32.load (local.get $p)))
        (local.set $p (i32.load (local.get $p))) (local.set $p (i32.load (local.get $p)))
        (local.set $p (i32.load (local.get $p))) (local.set $p (i32.load (local.get $p)))
        (local.set $p (i32.load (local.get $p))) (local.set $p (i32.load (local.get $p)))
        (local.set $p (i32.load (local.get $p))) (local.set $p (i32.load (local.get $p)))
        (local.set $p (i32.load (local.get $p))) (local.set $p (i32.load (local.get $p)))
        (local.set $p (i32.load (local.get $p))) (local.set $p (i32.load (local.get $p)))
        (local.set $p (i32.load (local.get $p))) (local.set $p (i32.load (local.get $p)))
        (local.set $count (i32.sub (local.get $count) (i32.const 16)))
        (br $l)))
    (local.get $p))
)
