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
    // the counter does count: a Vec allocates once
    assert_eq!(
        allocations_during(|| drop(std::hint::black_box(vec![1.0_f64; 4]))),
        1
    );
}
