//! The tape's promises on scalar code: fan-out sums, unread means zero,
//! `_backward` scales by its seed and accumulates, composition through
//! `#[tape]` calls and hand-written rules, and the primal left untouched.
//! Every gradient is compared with central finite differences or with an
//! independent analytic derivative.
#![deny(warnings)]

use mica::check::check_gradient;
use mica::tape;

// ------------------------------------------------------------- fan-out sums

#[tape]
fn thrice(#[tracked] k: f64) -> f64 {
    // the knob feeds three paths; its slope is their sum: 2k + 3 + cos k
    k * k + 3.0 * k + k.sin()
}

#[tape]
fn reused(#[tracked] a: f64, #[tracked] b: f64) -> f64 {
    // `m` is read by four later lines
    let m = a * b;
    let p = m * m;
    let q = m.exp();
    let r = m / (1.0 + b);
    p + q + r + m
}

#[test]
fn fan_out_sums_over_paths() {
    for k in [-2.0, -0.5, 0.0, 0.7, 3.0] {
        let (value, slope) = thrice_grad(k);
        assert_eq!(value, thrice(k));
        let by_algebra = 2.0 * k + 3.0 + f64::cos(k);
        assert!(
            (slope - by_algebra).abs() <= 1e-12 * (1.0 + by_algebra.abs()),
            "{slope} vs {by_algebra}"
        );
    }
}

#[test]
fn a_value_read_by_several_lines_collects_all_of_them() {
    for (a, b) in [
        (0.3, 0.4),
        (-0.8, 1.2),
        (1.1, -0.3),
        (0.0, 2.0),
        (-1.5, -0.2),
    ] {
        let (value, (da, db)) = reused_grad(a, b);
        assert_eq!(value, reused(a, b));
        check_gradient(|x: &[f64]| reused(x[0], x[1]), &[a, b], &[da, db]).unwrap();
    }
}

// ---------------------------------------------------------- unread is zero

#[tape]
fn ignores_b(#[tracked] a: f64, #[tracked] _b: f64, #[tracked] _c: f32) -> f64 {
    a * 2.0
}

#[tape]
fn dead_end(#[tracked] a: f64, #[tracked] b: f64) -> f64 {
    // `b` is read, but nothing it feeds reaches the value
    let _unused = b * b;
    a + 1.0
}

#[tape]
fn constant_value(#[tracked] _a: f32) -> f32 {
    4.0
}

#[test]
fn unread_means_exactly_zero() {
    let (_, (da, db, dc)) = ignores_b_grad(1.5, 7.0, 3.0);
    assert_eq!((da, db, dc), (2.0, 0.0, 0.0));
    assert!(db.is_sign_positive() && dc.is_sign_positive());
    let (_, (da, db)) = dead_end_grad(1.0, 5.0);
    assert_eq!((da, db), (1.0, 0.0));
    assert_eq!(constant_value_grad(9.0), (4.0, 0.0));
}

#[tape]
fn window_with_idle_knob(x0: f64) -> (f64, f64, f32) {
    #[tracked]
    let a = x0;
    #[tracked]
    let idle = 5.0_f64;
    #[tracked]
    let idle32 = 5.0_f32;
    tape! {
        let y = a * a;
    }
    backward!(y);
    (gradient!(a), gradient!(idle), gradient!(idle32))
}

#[test]
fn an_idle_knob_answers_zero_in_the_window_form() {
    assert_eq!(window_with_idle_knob(3.0), (6.0, 0.0, 0.0));
}

// ------------------------------------------------- _backward: seed and sums

#[tape]
pub fn affine(#[tracked] w: f64, #[tracked] b: f64, x: f64, y: f64) -> f64 {
    let r = w * x + b - y;
    r * r
}

#[test]
fn backward_scales_by_seed_and_adds_into_slots() {
    let (w, b, x, y) = (0.5, -0.25, 2.0, 1.0);
    let (value, (gw, gb)) = affine_grad(w, b, x, y);
    let (mut dw, mut db) = (10.0, -3.0);
    let returned = affine_backward(w, b, x, y, 2.5, &mut dw, &mut db);
    assert_eq!(returned, value);
    assert_eq!((dw, db), (10.0 + 2.5 * gw, -3.0 + 2.5 * gb));
}

#[tape]
fn chain(#[tracked] a: f64, #[tracked] b: f64, x: f64) -> f64 {
    let m = (a * x - b).sin() * a;
    let q = m * m / (1.0 + b * b);
    q.exp() * 0.5 + m * b
}

#[tape]
fn chain32(#[tracked] a: f32, #[tracked] b: f32, x: f32) -> f32 {
    let m = (a * x - b).sin() * a;
    let q = m * m / (1.0 + b * b);
    q.exp() * 0.5 + m * b
}

/// `backward(seed, d_a, d_b)` from zero slots adds exactly `seed × g`
/// (`at` names the point on failure).
fn adds_exactly_seed_times<T>(
    at: (T, T, T),
    backward: impl Fn(T, &mut T, &mut T),
    (ga, gb): (T, T),
    seeds: [T; 4],
) where
    T: Copy + Default + PartialEq + std::fmt::Debug + std::ops::Mul<Output = T>,
{
    for seed in seeds {
        let (mut da, mut db) = (T::default(), T::default());
        backward(seed, &mut da, &mut db);
        assert_eq!((da, db), (seed * ga, seed * gb), "seed {seed:?} at {at:?}");
    }
}

/// With only scalar knobs, the sweep runs from a seed of one and `seed`
/// multiplies each knob's total once, so `_backward` adds exactly
/// `seed × _grad`'s slope, whatever the seed.
#[test]
fn with_scalar_knobs_backward_adds_exactly_seed_times_the_slope() {
    for (a, b, x) in [(0.3, 0.9, 1.7), (-1.2, 0.4, 0.3), (0.8, -0.6, -2.1)] {
        let (_, g) = chain_grad(a, b, x);
        check_gradient(|p: &[f64]| chain(p[0], p[1], x), &[a, b], &[g.0, g.1]).unwrap();
        let backward = |s, da: &mut f64, db: &mut f64| {
            chain_backward(a, b, x, s, da, db);
        };
        adds_exactly_seed_times((a, b, x), backward, g, [0.1, -3.7, 1.0 / 3.0, 1e-3]);

        let (a, b, x) = (a as f32, b as f32, x as f32);
        let (_, g) = chain32_grad(a, b, x);
        check_gradient(|p: &[f32]| chain32(p[0], p[1], x), &[a, b], &[g.0, g.1]).unwrap();
        let backward = |s, da: &mut f32, db: &mut f32| {
            chain32_backward(a, b, x, s, da, db);
        };
        adds_exactly_seed_times((a, b, x), backward, g, [0.1, -3.7, 1.0 / 3.0, 1e-3]);
    }
}

#[test]
fn backward_over_a_batch_sums_the_batch_gradient() {
    let data = [(1.0, 2.0), (2.0, 3.5), (-1.0, 0.0), (0.5, 0.5)];
    let (w, b) = (0.8, 0.1);
    let (mut dw, mut db) = (0.0, 0.0);
    let mut total = 0.0;
    for &(x, y) in &data {
        total += affine_backward(w, b, x, y, 1.0, &mut dw, &mut db);
    }
    let batch = |p: &[f64]| {
        data.iter()
            .map(|&(x, y)| affine(p[0], p[1], x, y))
            .sum::<f64>()
    };
    assert_eq!(total, batch(&[w, b]));
    check_gradient(batch, &[w, b], &[dw, db]).unwrap();
    // by algebra: Σ 2r·x and Σ 2r
    let r = |x: f64, y: f64| w * x + b - y;
    let by_algebra_w: f64 = data.iter().map(|&(x, y)| 2.0 * r(x, y) * x).sum();
    let by_algebra_b: f64 = data.iter().map(|&(x, y)| 2.0 * r(x, y)).sum();
    assert!((dw - by_algebra_w).abs() < 1e-12 && (db - by_algebra_b).abs() < 1e-12);
}

// ------------------------------------------------------------- composition

#[tape]
fn inner(#[tracked] x: f64, scale: f64) -> f64 {
    (x * scale).sin()
}

#[tape]
fn middle(#[tracked] x: f64, #[tracked] y: f64) -> f64 {
    inner(x * y, 2.0) + inner(y, 0.5) * y.cos()
}

#[tape]
fn outer(#[tracked] a: f64, #[tracked] b: f64) -> f64 {
    let m = middle(a, b * a);
    m * m + middle(1.5, b) + inner(a, 3.0)
}

#[test]
fn a_chain_of_three_tape_functions() {
    for (a, b) in [
        (0.3, 0.9),
        (-1.2, 0.4),
        (0.8, -0.6),
        (2.0, 1.5),
        (-0.1, -2.2),
    ] {
        let (value, (da, db)) = outer_grad(a, b);
        assert_eq!(value, outer(a, b));
        check_gradient(|x: &[f64]| outer(x[0], x[1]), &[a, b], &[da, db]).unwrap();
    }
}

/// `mid(x, y) = x / y`, whose adjoint is written by hand.
#[tape(custom)]
fn ratio(#[tracked] x: f64, #[tracked] y: f64) -> f64 {
    x / y
}

fn ratio_backward(x: f64, y: f64, seed: f64, d_x: &mut f64, d_y: &mut f64) -> f64 {
    *d_x += seed / y;
    *d_y -= seed * x / (y * y);
    x / y
}

/// A hand-written rule whose slope is deliberately not the calculus one
/// (a "straight-through" rounding): proof the caller uses the rule.
#[tape(custom)]
fn snap(#[tracked] x: f32) -> f32 {
    x.round()
}

fn snap_backward(x: f32, seed: f32, d_x: &mut f32) -> f32 {
    *d_x += seed;
    x.round()
}

#[tape]
fn uses_rules(#[tracked] a: f64, #[tracked] b: f64) -> f64 {
    ratio(a * a, b) + ratio(3.0, b)
}

#[tape]
fn uses_snap(#[tracked] x: f32) -> f32 {
    snap(x * 3.0) * 2.0
}

#[test]
fn a_custom_rule_is_used_by_its_callers() {
    for (a, b) in [
        (1.0, 2.0),
        (-0.5, 0.7),
        (2.5, -1.5),
        (0.1, 4.0),
        (-3.0, -0.9),
    ] {
        let (value, (da, db)) = uses_rules_grad(a, b);
        assert_eq!(value, uses_rules(a, b));
        check_gradient(|x: &[f64]| uses_rules(x[0], x[1]), &[a, b], &[da, db]).unwrap();
    }
    // the straight-through rule: d/dx 2·snap(3x) = 2·3 by the rule
    for x in [-1.3_f32, 0.2, 0.49, 2.7, 10.0] {
        assert_eq!(uses_snap_grad(x), (uses_snap(x), 6.0));
    }
}

// ------------------------------------------------ runtime functions, detach

#[tape]
fn activations(#[tracked] x: f64) -> f64 {
    mica::sigmoid(x) * mica::softplus(x * 0.5) + mica::relu(x - 0.25)
}

#[tape]
fn stopped(#[tracked] x: f64) -> f64 {
    // the detached path is a constant: only `x * 2` carries a slope
    x * 2.0 + mica::detach(x * x) * 10.0
}

#[test]
fn runtime_functions_and_detach() {
    for x in [-3.0, -0.4, 0.1, 0.9, 4.0] {
        let (value, slope) = activations_grad(x);
        assert_eq!(value, activations(x));
        check_gradient(|v: &[f64]| activations(v[0]), &[x], &[slope]).unwrap();
        assert_eq!(stopped_grad(x), (stopped(x), 2.0));
    }
}

// -------------------------------------------------- bindings and shapes

#[tape]
fn bindings(#[tracked] a: f32, #[tracked] b: f32, n: i32) -> f32 {
    let x: f32 = a * 2.0;
    let x = x + b; // shadowing
    let mut acc = 0.0;
    acc += x;
    acc -= b * 0.5;
    acc *= a;
    acc /= 1.0 + b * b;
    let (p, (q, r)) = (acc, (x.powi(n), -b));
    let t = (p, q);
    let blk = {
        let inner = t.0 * r;
        inner + t.1
    };
    let mut param_copy = a;
    param_copy = param_copy * param_copy;
    (blk + param_copy) * 1.0
}

#[test]
fn lets_shadowing_compound_assignment_tuples_and_blocks() {
    for (a, b) in [
        (0.5_f32, 0.25_f32),
        (-1.0, 0.75),
        (1.5, -0.5),
        (0.1, 1.2),
        (-0.7, -1.1),
    ] {
        let (value, (da, db)) = bindings_grad(a, b, 3);
        assert_eq!(value, bindings(a, b, 3));
        check_gradient(|x: &[f32]| bindings(x[0], x[1], 3), &[a, b], &[da, db]).unwrap();
    }
}

#[tape]
fn shadowed_parameter(#[tracked] x: f64) -> f64 {
    let mut x = x;
    x *= 3.0;
    x = x.exp() - x;
    x
}

#[tape]
fn mutable_parameter(#[tracked] mut x: f64) -> f64 {
    x += 1.0;
    x * x
}

#[test]
fn parameters_shadowed_or_mutated() {
    for x in [-1.0, -0.2, 0.0, 0.3, 1.0] {
        let (value, slope) = shadowed_parameter_grad(x);
        assert_eq!(value, shadowed_parameter(x));
        assert!((slope - (3.0 * (3.0 * x).exp() - 3.0)).abs() < 1e-12);
        assert_eq!(
            mutable_parameter_grad(x),
            (mutable_parameter(x), 2.0 * (x + 1.0))
        );
    }
}

// ------------------------------------------ window form agrees with the rest

#[tape]
fn loss_fn(#[tracked] a: f64) -> f64 {
    let m1 = a * 1.0 - 2.0;
    let m2 = a * 2.0 - 4.0;
    let m3 = a * 3.0 - 6.0;
    m1 * m1 + m2 * m2 + m3 * m3
}

#[tape]
fn loss_window(a0: f64) -> (f64, f64) {
    #[tracked]
    let a = a0;
    tape! {
        let m1 = a * 1.0 - 2.0;
        let m2 = a * 2.0 - 4.0;
        let m3 = a * 3.0 - 6.0;
        let loss = m1 * m1 + m2 * m2 + m3 * m3;
    }
    backward!(loss);
    (loss, gradient!(a))
}

#[test]
fn the_two_forms_and_algebra_agree() {
    for a in [0.0, 1.75, -3.0, 2.0, 10.5] {
        let by_function = loss_fn_grad(a);
        assert_eq!(by_function, loss_window(a));
        assert_eq!(by_function.0, loss_fn(a));
        // by algebra: 14(a-2)² and 28(a-2)
        let by_algebra = 28.0 * (a - 2.0);
        assert!((by_function.1 - by_algebra).abs() <= 1e-12 * (1.0 + by_algebra.abs()));
    }
}

#[tape]
fn knob_changes_before_backward() -> (f64, f64) {
    #[tracked]
    let mut a = 3.0_f64;
    tape! {
        let y = a * a * a;
    }
    a = 100.0; // the walk uses the value the window recorded
    backward!(y);
    let slope = gradient!(a);
    (slope, a)
}

#[test]
fn the_walk_uses_the_recorded_values() {
    assert_eq!(knob_changes_before_backward(), (27.0, 100.0));
}

#[tape]
fn windows_in_loop_and_nested_blocks(steps: usize) -> Vec<(f32, f32)> {
    #[tracked]
    let mut a = 1.0_f32;
    #[tracked]
    let b = 0.5_f32;
    let mut out = Vec::new();
    for _ in 0..steps {
        tape! {
            let t = (a * b).sin();
            let u = t * a + b;
        }
        backward!(u);
        {
            // gradient! in a block nested after the walk
            let ga = gradient!(a);
            if ga.is_finite() {
                out.push((ga, gradient!(b)));
            }
        }
        a -= 0.1 * gradient!(a);
    }
    out
}

#[test]
fn windows_inside_loops_with_gradients_in_nested_blocks() {
    let got = windows_in_loop_and_nested_blocks(4);
    assert_eq!(got.len(), 4);
    let mut a = 1.0_f32;
    let b = 0.5_f32;
    for (ga, gb) in got {
        // u = sin(ab)·a + b
        let ga_alg = (a * b).cos() * b * a + (a * b).sin();
        let gb_alg = (a * b).cos() * a * a + 1.0;
        assert!((ga - ga_alg).abs() < 1e-6 && (gb - gb_alg).abs() < 1e-6);
        a -= 0.1 * ga;
    }
}

// ---------------------------------------------------- primal is unchanged

#[tape]
fn with_side_effects(#[tracked] x: f64, log: &std::cell::Cell<u32>) -> f64 {
    log.set(log.get() + 1);
    let y = x * 2.0;
    y + 1.0
}

#[test]
fn the_primal_is_the_function_as_written() {
    let log = std::cell::Cell::new(0);
    assert_eq!(with_side_effects(1.0, &log), 3.0);
    assert_eq!(log.get(), 1);
    // the adjoint runs the forward sweep once more, as the primal would
    assert_eq!(with_side_effects_grad(1.0, &log), (3.0, 2.0));
    assert_eq!(log.get(), 2);
    // a plain `fn` pointer of the primal's exact signature
    let _: fn(f64, &std::cell::Cell<u32>) -> f64 = with_side_effects;
    let _: fn(f64, &std::cell::Cell<u32>) -> (f64, f64) = with_side_effects_grad;
    let _: fn(f64, &std::cell::Cell<u32>, f64, &mut f64) -> f64 = with_side_effects_backward;
}

mod visibility {
    use mica::tape;
    #[tape]
    pub fn exported(#[tracked] x: f32) -> f32 {
        x * x
    }
    #[tape]
    pub(crate) fn crate_wide(#[tracked] x: f32) -> f32 {
        x.exp()
    }
}

#[tape]
fn calls_across_modules(#[tracked] x: f32) -> f32 {
    visibility::exported(x) + visibility::crate_wide(x)
}

#[test]
fn companions_share_visibility_and_calls_cross_modules() {
    use visibility::{crate_wide, exported};
    assert_eq!(visibility::exported_grad(3.0), (9.0, 6.0));
    assert_eq!(visibility::crate_wide_grad(0.0), (1.0, 1.0));
    let (v, d) = calls_across_modules_grad(0.5);
    assert_eq!(v, exported(0.5) + crate_wide(0.5));
    assert!((d - (1.0 + 0.5_f32.exp())).abs() < 1e-6);
}

// ----------------------------------------------------------------- methods

struct Spring {
    stiffness: f64,
    rest: f64,
}

impl Spring {
    /// Elastic energy of a stretch `x`.
    #[tape]
    fn energy(&self, #[tracked] x: f64) -> f64 {
        let d = x - self.rest;
        0.5 * self.stiffness * d * d
    }

    /// Two springs in series, through `energy`.
    #[tape]
    pub fn pair(&self, #[tracked] x: f64, #[tracked] y: f64) -> f64 {
        self.energy(x) + self.energy(y - x) * 2.0
    }
}

#[tape]
fn total(#[tracked] x: f64, spring: &Spring) -> f64 {
    spring.pair(x, x * 3.0) + spring.energy(x.sin())
}

#[tape]
fn method_in_a_window(spring: &Spring, x0: f64) -> f64 {
    #[tracked]
    let x = x0;
    tape! {
        let e = spring.energy(x) * 3.0;
    }
    backward!(e);
    gradient!(x)
}

#[test]
fn methods_are_differentiated_and_callable_from_tape_code() {
    let spring = Spring {
        stiffness: 4.0,
        rest: 0.5,
    };
    for x in [-1.0, 0.0, 0.3, 0.5, 2.0] {
        let (value, slope) = spring.energy_grad(x);
        assert_eq!(value, spring.energy(x));
        assert_eq!(slope, 4.0 * (x - 0.5));
        let (value, (dx, dy)) = spring.pair_grad(x, 1.5);
        assert_eq!(value, spring.pair(x, 1.5));
        check_gradient(|p: &[f64]| spring.pair(p[0], p[1]), &[x, 1.5], &[dx, dy]).unwrap();
        let (value, slope) = total_grad(x, &spring);
        assert_eq!(value, total(x, &spring));
        check_gradient(|p: &[f64]| total(p[0], &spring), &[x], &[slope]).unwrap();
        assert_eq!(method_in_a_window(&spring, x), 3.0 * 4.0 * (x - 0.5));
    }
}
