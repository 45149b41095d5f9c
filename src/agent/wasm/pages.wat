;; The paced mover's per-page loops (src/agent/move_batch.ts), on one memory that the agent
;; owns and passes to move_pages(2) as it is: page addresses as 64-bit words, nodes and
;; statuses as 32-bit ints. In WebAssembly so that a move's first batches do not wait for, nor
;; pay, V8's optimizing compiler: plain JavaScript ran these loops in the interpreter until they
;; got hot and then compiled and recompiled them, about 0.2-0.4 CPU s of a 400 MB move in a TCG
;; lab guest (docs/agent.md). Offsets are bytes. Compiled by scripts/build-wasm.mjs into
;; pages_wasm.ts.
(module
  (import "env" "memory" (memory 1))

  ;; fill: the 64-bit words at $out get start, start + step, ... (count of them). start is an
  ;; address below 2^53 (a user-space address: below 2^48), given as a double.
  (func (export "fill") (param $out i32) (param $start f64) (param $step i32) (param $count i32)
    (local $a i64) (local $end i32)
    (local.set $a (i64.trunc_f64_u (local.get $start)))
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 3))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (i64.store (local.get $out) (local.get $a))
        (local.set $a (i64.add (local.get $a) (i64.extend_i32_u (local.get $step))))
        (local.set $out (i32.add (local.get $out) (i32.const 8)))
        (br $next))))

  ;; select: of the count pages at $addrs whose status (the node they are on) has a target in
  ;; $table (tableLen 32-bit entries, node -> target node or -1), appends the address to
  ;; $chosen and the target to $nodes; returns how many. A negative status (-errno) is never
  ;; below tableLen as an unsigned number.
  (func (export "select") (param $addrs i32) (param $status i32) (param $count i32) (param $table i32) (param $tableLen i32) (param $chosen i32) (param $nodes i32) (result i32)
    (local $i i32) (local $n i32) (local $s i32) (local $t i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $s (i32.load (i32.add (local.get $status) (i32.shl (local.get $i) (i32.const 2)))))
        (if (i32.lt_u (local.get $s) (local.get $tableLen))
          (then
            (local.set $t (i32.load (i32.add (local.get $table) (i32.shl (local.get $s) (i32.const 2)))))
            (if (i32.ge_s (local.get $t) (i32.const 0))
              (then
                (i64.store (i32.add (local.get $chosen) (i32.shl (local.get $n) (i32.const 3)))
                  (i64.load (i32.add (local.get $addrs) (i32.shl (local.get $i) (i32.const 3)))))
                (i32.store (i32.add (local.get $nodes) (i32.shl (local.get $n) (i32.const 2))) (local.get $t))
                (local.set $n (i32.add (local.get $n) (i32.const 1)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $n))

  ;; unsure: 1 when one of the n statuses at $status is $unset (the kernel did not write it) or
  ;; $busy (-EBUSY: asked again, as a tail page of a huge page answers while its head moves).
  (func (export "unsure") (param $status i32) (param $n i32) (param $unset i32) (param $busy i32) (result i32)
    (local $end i32) (local $s i32)
    (local.set $end (i32.add (local.get $status) (i32.shl (local.get $n) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $status) (local.get $end)))
        (local.set $s (i32.load (local.get $status)))
        (if (i32.or (i32.eq (local.get $s) (local.get $unset)) (i32.eq (local.get $s) (local.get $busy)))
          (then (return (i32.const 1))))
        (local.set $status (i32.add (local.get $status) (i32.const 4)))
        (br $next)))
    (i32.const 0))

  ;; tally: of n pages, those whose status is neither $skip1 nor $skip2 (-ENOENT: never
  ;; touched; -EFAULT: unmapped meanwhile) are found; a found page whose status is its node in
  ;; $nodes moved, and the index of each other one is appended to $left. Writes found at $out
  ;; and the count of $left at $out + 4; returns the pages moved.
  (func (export "tally") (param $status i32) (param $nodes i32) (param $n i32) (param $skip1 i32) (param $skip2 i32) (param $left i32) (param $out i32) (result i32)
    (local $i i32) (local $s i32) (local $found i32) (local $moved i32) (local $nl i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $s (i32.load (i32.add (local.get $status) (i32.shl (local.get $i) (i32.const 2)))))
        (if (i32.eqz (i32.or (i32.eq (local.get $s) (local.get $skip1)) (i32.eq (local.get $s) (local.get $skip2))))
          (then
            (local.set $found (i32.add (local.get $found) (i32.const 1)))
            (if (i32.eq (local.get $s) (i32.load (i32.add (local.get $nodes) (i32.shl (local.get $i) (i32.const 2)))))
              (then (local.set $moved (i32.add (local.get $moved) (i32.const 1))))
              (else
                (i32.store (i32.add (local.get $left) (i32.shl (local.get $nl) (i32.const 2))) (local.get $i))
                (local.set $nl (i32.add (local.get $nl) (i32.const 1)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.store (local.get $out) (local.get $found))
    (i32.store offset=4 (local.get $out) (local.get $nl))
    (local.get $moved)))
