//! Straight-line generated code allocates nothing: a counting global
//! allocator sees zero allocations across `_grad`, `_backward`, calls
//! between tape functions and the window form.
#![deny(warnings)]

use mica::tape;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[tape]
fn energy(#[tracked] x: f64, #[tracked] v: f64, k: f64) -> f64 {
    let kinetic = 0.5 * v * v;
    let potential = 0.5 * k * x * x + (x * 3.0).sin().powi(2);
    let damped = {
        let t = kinetic.sqrt();
        t * mica::sigmoid(v)
    };
    kinetic + potential + damped
}

#[tape]
fn calls(#[tracked] x: f64, #[tracked] v: f64) -> f64 {
    energy(x, v, 2.0) * energy(v, x, 0.5) + mica::softplus(x)
}

#[tape]
fn window(x0: f32, steps: usize) -> f32 {
    #[tracked]
    let mut x = x0;
    for _ in 0..steps {
        tape! {
            let y = (x - 1.5).powi(2) + x.cos() * 0.1;
        }
        backward!(y);
        x -= 0.1 * gradient!(x);
    }
    x
}

#[tape]
fn looped(#[tracked] w: &[f64], xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, x) in xs.iter().enumerate() {
        let r = w[i % 2] * x - 1.0;
        s += r.sin();
    }
    s * s
}

/// The same loop, its sum used linearly after it: fused, it keeps nothing.
#[tape]
fn summed(#[tracked] w: &[f64], xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, x) in xs.iter().enumerate() {
        let r = w[i % 2] * x - 1.0;
        s += r.sin();
    }
    s / xs.len() as f64
}

#[tape]
fn nested(#[tracked] w: &[f64], rows: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..rows {
        for wj in w.iter() {
            s += (wj * (i + 1) as f64).sin();
        }
    }
    s
}

#[tape]
fn nested_kept(#[tracked] w: &[f64], rows: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..rows {
        let mut z = 0.0;
        for wj in w.iter() {
            z = (z + wj * (i + 1) as f64).sin();
        }
        s += z;
    }
    s
}

#[tape]
fn nested_scaled(#[tracked] w: &[f64], rows: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..rows {
        for wj in w.iter() {
            s = 0.99 * s + (wj * (i + 1) as f64).sin();
        }
    }
    s
}

#[tape]
fn fixed_trips(#[tracked] x: f64) -> f64 {
    let mut s = x;
    for _ in 0..50 {
        s = (s * 0.9).sin() + x;
    }
    s
}

const STEPS: usize = 300;

#[tape]
fn const_trips(#[tracked] x: f64) -> f64 {
    let mut s = x;
    for _ in 0..STEPS {
        s = (s * 0.9).sin() + x;
    }
    s
}

/// A `Vec` made in every iteration: the primal allocates it each time; the
/// reverse makes its adjoint buffer in the memory the iteration walked
/// before gave back.
#[tape]
fn scratch(#[tracked] w: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        let mut g = vec![0.0; n];
        g[i % n] = w[i] * 2.0;
        s += g[i % n].sin() + g[0];
    }
    s
}

/// The same walked back (its sum decays, so it is not fused).
#[tape]
fn scratch_walked(#[tracked] w: &[f64], n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        let mut g = vec![0.0; n];
        g[i % n] = w[i] * 2.0;
        s = 0.5 * s + g[i % n].sin() + g[0];
    }
    s
}

/// An inner range read from a binding the outer loop changes: the reverse
/// cannot evaluate it again, so it keeps the range, and the inner loop's
/// room is made where it starts, in every outer iteration.
#[tape]
fn kept_inner(#[tracked] w: &[f64], lens: &[usize]) -> f64 {
    let mut s = 0.0;
    let mut m = lens[0];
    for i in 0..lens.len() {
        for j in 0..m {
            s = (0.9 * s + w[j % w.len()] * (i + 1) as f64).sin();
        }
        m = lens[(i + 1) % lens.len()];
    }
    s
}

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    f();
    ALLOCATIONS.load(Ordering::SeqCst) - before
}

// one test function, so no other test thread allocates meanwhile
#[test]
fn straight_line_gradients_allocate_nothing() {
    let mut sink = 0.0;
    let n = allocations_during(|| {
        for i in 0..100 {
            let x = 0.05 + f64::from(i) * 0.01;
            let (value, (dx, dv)) = energy_grad(x, 0.3, 2.0);
            let (mut ax, mut av) = (0.0, 0.0);
            let value2 = calls_backward(x, 0.7, 1.5, &mut ax, &mut av);
            sink += value + dx + dv + value2 + ax + av;
        }
        sink += f64::from(window(0.0, 50));
    });
    assert!(sink.is_finite());
    assert_eq!(n, 0, "generated code allocated {n} times");
    // a `for` loop's storage is sized once, before the loop: one allocation
    // per gradient however many iterations run
    let xs: Vec<f64> = (0..1_000).map(|i| f64::from(i) * 0.001).collect();
    let w = [0.5, -0.25];
    let mut d_w = [0.0; 2];
    for n in [10, 1_000] {
        let counted = allocations_during(|| {
            sink += looped_backward(&w, &xs[..n], 1.0, &mut d_w);
        });
        assert_eq!(counted, 1, "{n} iterations");
        // a loop whose reverse runs inside it keeps nothing
        let counted = allocations_during(|| {
            sink += summed_backward(&w, &xs[..n], 1.0, &mut d_w);
        });
        assert_eq!(counted, 0, "{n} iterations, fused");
    }
    // nested loops: the outer loop's storage once, the inner loop's storage
    // sized at each outer iteration (it grows a few times, not per element)
    let counted = allocations_during(|| {
        sink += nested_scaled_backward(&w, 200, 1.0, &mut d_w);
    });
    assert!((2..=12).contains(&counted), "{counted} allocations");
    // nested loops that only sum: both run their reverse inside their
    // forward loops, and keep nothing
    let counted = allocations_during(|| {
        sink += nested_backward(&w, 200, 1.0, &mut d_w);
    });
    assert_eq!(counted, 0, "nested sums");
    // the inner loop a recurrence: the outer loop runs its reverse inside
    // it, and the inner loop's storage, the same size in every outer
    // iteration, is sized once before them
    let counted = allocations_during(|| {
        sink += nested_kept_backward(&w, 200, 1.0, &mut d_w);
    });
    assert_eq!(counted, 1, "a recurrence in a sum");
    // the same loops with an inner range kept per outer iteration: the
    // inner loop's tape is made the first time for all the outer loop's
    // runs, so the allocations do not grow with the rows (made as each run
    // needed, the tape grew by doubling: 8 allocations at 50 rows, 12 at
    // 500)
    let w3 = [0.5, -0.25, 0.125];
    for rows in [50, 500] {
        let lens: Vec<usize> = (0..rows).map(|i| 4 + i % 3).collect();
        let mut d_w = [0.0; 3];
        let counted = allocations_during(|| {
            sink += kept_inner_backward(&w3, &lens, 1.0, &mut d_w);
        });
        assert!(counted <= 3, "{rows} rows: {counted} allocations");
        // and the slopes are those of central differences
        for k in 0..3 {
            let h = 1e-6;
            let (mut up, mut down) = (w3, w3);
            up[k] += h;
            down[k] -= h;
            let fd = (kept_inner(&up, &lens) - kept_inner(&down, &lens)) / (2.0 * h);
            let d = d_w[k];
            assert!(
                (d - fd).abs() < 1e-6 * (1.0 + fd.abs()),
                "{rows} rows, w[{k}]: {d} vs {fd}"
            );
        }
    }
    // a loop over a literal range keeps its storage on the stack
    let counted = allocations_during(|| sink += fixed_trips_grad(0.3).1);
    assert_eq!(counted, 0);
    // … and so does one over a range bounded by a `const` item
    let counted = allocations_during(|| sink += const_trips_grad(0.3).1);
    assert_eq!(counted, 0);
    assert!(sink.is_finite());
    // a `Vec` made in each of a loop's iterations: the forward sweep makes
    // it as the primal does, the reverse's buffer is made once and reused
    for iterations in [10, 100] {
        let w: Vec<f64> = (0..iterations)
            .map(|i| 0.01 * f64::from(i as u32))
            .collect();
        let mut d_w = vec![0.0; iterations];
        let counted = allocations_during(|| {
            sink += scratch_backward(&w, 3, 1.0, &mut d_w);
        });
        // the primal's vectors and the one buffer (the fused loop keeps
        // nothing)
        assert_eq!(counted, iterations + 1, "{iterations} iterations");
        // slopes by hand: 2 cos(2 w_i), and 2 more where g[0] is w_i's
        let slope =
            |i: usize, w: f64| 2.0 * (2.0 * w).cos() + if i.is_multiple_of(3) { 2.0 } else { 0.0 };
        for (i, (d, w)) in d_w.iter().zip(&w).enumerate() {
            assert!((d - slope(i, *w)).abs() < 1e-12, "{i}: {d}");
        }
        // walked back: the primal's vectors, the tape, the one buffer
        let mut d_w = vec![0.0; iterations];
        let counted = allocations_during(|| {
            sink += scratch_walked_backward(&w, 3, 1.0, &mut d_w);
        });
        assert_eq!(counted, iterations + 2, "{iterations} iterations, walked");
        // each term is halved once per later iteration
        for (i, (d, w)) in d_w.iter().zip(&w).enumerate() {
            let expected = slope(i, *w) * 0.5_f64.powi((iterations - 1 - i) as i32);
            assert!((d - expected).abs() < 1e-12, "{i}: {d} vs {expected}");
        }
    }
    // the counter does count: a Vec allocates once
    assert_eq!(
        allocations_during(|| drop(std::hint::black_box(vec![1.0_f64; 4]))),
        1
    );
}
