#![deny(warnings)]
//! Every entry of the recorded vocabulary, in `f32` and in `f64`: the binary
//! operators in all three placements (recorded op recorded, recorded op
//! constant, constant op recorded — the constant a literal or an untracked
//! parameter), unary `-`, every float method with a rule or a zero slope, the
//! runtime's `sigmoid`/`relu`/`softplus`, and `detach`.
//!
//! Each case is one expression over its tracked parameters. `op!` turns it
//! into, per float type, a `#[tape]` function `f` (the function form), a
//! `#[tape]` function `w` computing the same expression in a `tape!` window
//! (the window form), an `eval` that runs every form and holds them to each
//! other bit for bit, and a test comparing the slopes with central finite
//! differences at every listed point. Conventions at kinks and at singular
//! points are checked by the hand-written tests at the end.

use std::fmt::Debug;
use std::ops::{Mul, Sub};

// ------------------------------------------------------------------ helpers

/// What the helpers need of `f32` and `f64`.
trait Real: Copy + PartialOrd + Debug + Sub<Output = Self> + Mul<Output = Self> {
    const EPS: Self;
    const ZERO: Self;
    const ONE: Self;
    fn bits(self) -> u64;
    fn nan(self) -> bool;
    fn magnitude(self) -> Self;
    fn of(v: f64) -> Self;
    fn wide(self) -> f64;
}

macro_rules! real {
    ($T:ident) => {
        impl Real for $T {
            const EPS: Self = $T::EPSILON;
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            fn bits(self) -> u64 {
                u64::from(self.to_bits())
            }
            fn nan(self) -> bool {
                self.is_nan()
            }
            fn magnitude(self) -> Self {
                self.abs()
            }
            fn of(v: f64) -> Self {
                v as $T
            }
            fn wide(self) -> f64 {
                f64::from(self)
            }
        }
    };
}
real!(f32);
real!(f64);

/// Bit-identical (two NaNs count as the same: their payload is not promised).
#[track_caller]
fn same<T: Real>(what: &str, got: T, want: T) {
    assert!(
        got.bits() == want.bits() || (got.nan() && want.nan()),
        "{what}: got {got:?}, expected exactly {want:?}"
    );
}

/// As [`same`], except that `0.0` and `-0.0` count as the same slope: a
/// `_backward` slot starts at `+0.0` and `+0.0 + -0.0` is `+0.0`, while the
/// window binds the slope itself, so an exact zero may differ in sign only.
#[track_caller]
fn same_slope<T: Real>(what: &str, got: T, want: T) {
    if got == T::ZERO && want == T::ZERO {
        return;
    }
    same(what, got, want);
}

/// Equal up to a few roundings: `seed * b / d` and `seed * (b / d)` round
/// differently, so a seed other than 1 is held to 16 ε, relative.
#[track_caller]
fn close<T: Real>(what: &str, got: T, want: T) {
    if got == want || (got.nan() && want.nan()) {
        return;
    }
    let mut scale = T::ONE;
    for m in [got.magnitude(), want.magnitude()] {
        if m > scale {
            scale = m;
        }
    }
    let err = (got - want).magnitude();
    assert!(
        err <= T::of(16.0) * T::EPS * scale,
        "{what}: got {got:?}, expected {want:?}"
    );
}

/// The expression, unchanged (drives a repetition over `$p`).
macro_rules! pick {
    ($ignored:ident, $e:expr) => {
        $e
    };
}

/// `Some(tolerance)` when a case asks for one.
macro_rules! opt {
    () => {
        None
    };
    ($e:expr) => {
        Some($e)
    };
}

/// `true` unless a case says otherwise.
macro_rules! or_true {
    () => {
        true
    };
    ($e:expr) => {
        $e
    };
}

/// `_grad`'s gradient as an array: a bare slope for one tracked parameter, a
/// tuple for more.
macro_rules! grad_array {
    ($g:expr; $a:ident) => {
        [$g]
    };
    ($g:expr; $a:ident, $b:ident) => {{
        let (ga, gb) = $g;
        [ga, gb]
    }};
    ($g:expr; $a:ident, $b:ident, $c:ident) => {{
        let (ga, gb, gc) = $g;
        [ga, gb, gc]
    }};
}

/// One case, in `f32` and `f64`:
///
/// ```text
/// op! {
///     name(tracked, … ; constant = value; …) = body;      // or: = f32 { … } f64 { … };
///     at [point], [point], …;          // finite differences, both types
///     f64 at [point], …;               // optional: points only f64 resolves
///     f32 tol 1e-2;                    // optional: a looser tolerance, with a reason
///     f64 tol 1e-6;
///     expect [slope, …];               // optional: the slopes, by formula
///     fd false;                        // optional: no finite differences
/// }
/// ```
macro_rules! op {
    ($name:ident $params:tt = f32 { $b32:expr } f64 { $b64:expr }; $($rest:tt)*) => {
        op!(@split $name $params [$b32] [$b64] $($rest)*);
    };
    ($name:ident $params:tt = $body:expr; $($rest:tt)*) => {
        op!(@split $name $params [$body] [$body] $($rest)*);
    };
    (@split $name:ident $params:tt [$b32:expr] [$b64:expr]
        at $([$($v:expr),+]),+;
        $(f64 at $([$($v64:expr),+]),+;)?
        $(f32 tol $t32:expr;)?
        $(f64 tol $t64:expr;)?
        $(expect $e:expr;)?
        $(fd $fd:expr;)?
    ) => {
        pub mod $name {
            op!(@module in_f32, f32, $params, $b32,
                [$([$($v),+]),+], [], [$($t32)?], [$($e)?], [$($fd)?]);
            op!(@module in_f64, f64, $params, $b64,
                [$([$($v),+]),+], [$($([$($v64),+]),+)?], [$($t64)?], [$($e)?], [$($fd)?]);
        }
    };
    (@module $m:ident, $T:ident, ($($p:ident),+ $(; $c:ident = $cv:expr)*), $body:expr,
        [$($pt:expr),+], [$($ext:expr),*], [$($tol:expr)?], [$($e:expr)?], [$($fd:expr)?]) => {
        pub mod $m {
            use mica::tape;
            use $crate::{close, same, same_slope};

            type T = $T;
            const N: usize = [$(stringify!($p)),+].len();

            /// The function form.
            #[tape]
            pub fn f($(#[tracked] $p: T),+ $(, $c: T)*) -> T {
                $body
            }

            /// The window form: the same expression in a `tape!` window.
            #[tape]
            pub fn w($($p: T),+ $(, $c: T)*) -> (T, [T; N]) {
                $(
                    #[tracked]
                    let $p = $p;
                )+
                tape! {
                    let out = $body;
                }
                backward!(out);
                (out, [$(gradient!($p)),+])
            }

            /// The value and the slopes at `pt`, after checking that the
            /// primal, `f_grad`, `f_backward` (seeded 1 into zeros, 2.5 into
            /// zeros and 2.5 into ones) and the window agree.
            pub fn eval(pt: [T; N]) -> (T, [T; N]) {
                let [$($p),+] = pt;
                $(let $c: T = $cv;)*
                let here = format!("{} at {:?}", module_path!(), pt);
                let primal = f($($p),+ $(, $c)*);

                let (value, grad) = f_grad($($p),+ $(, $c)*);
                let grad: [T; N] = grad_array!(grad; $($p),+);
                same(&format!("{here}: f_grad's value"), value, primal);

                let mut ones: [T; N] = [0.0; N];
                let value = {
                    let mut s = ones.iter_mut();
                    f_backward($($p,)+ $($c,)* 1.0, $(pick!($p, s.next().unwrap())),+)
                };
                same(&format!("{here}: f_backward's value"), value, primal);

                let mut scaled: [T; N] = [0.0; N];
                let value = {
                    let mut s = scaled.iter_mut();
                    f_backward($($p,)+ $($c,)* 2.5, $(pick!($p, s.next().unwrap())),+)
                };
                same(&format!("{here}: f_backward's value (seed 2.5)"), value, primal);

                let mut added: [T; N] = [1.0; N];
                let value = {
                    let mut s = added.iter_mut();
                    f_backward($($p,)+ $($c,)* 2.5, $(pick!($p, s.next().unwrap())),+)
                };
                same(&format!("{here}: f_backward's value (seed 2.5, slots at 1)"), value, primal);

                let (value, window) = w($($p),+ $(, $c)*);
                same(&format!("{here}: the window's value"), value, primal);

                for i in 0..N {
                    same(&format!("{here}: f_backward's slope {i}"), ones[i], grad[i]);
                    same_slope(&format!("{here}: the window's slope {i}"), window[i], grad[i]);
                    // `_backward` adds into its slot: exactly `1 + what it
                    // gives into a zero slot`, the same addition
                    same(&format!("{here}: slope {i} added into 1"), added[i], 1.0 + scaled[i]);
                    close(&format!("{here}: slope {i} seeded 2.5"), scaled[i], 2.5 * grad[i]);
                }
                $(
                    let expected: [T; N] = $e;
                    for i in 0..N {
                        close(&format!("{here}: slope {i} by formula"), grad[i], expected[i]);
                    }
                )?
                (primal, grad)
            }

            #[test]
            fn slopes() {
                let points: &[[T; N]] = &[$($pt),+];
                let extra: &[[T; N]] = &[$($ext),*];
                assert!(points.len() >= 5, "{}: fewer than 5 points", module_path!());
                let tolerance: Option<T> = opt!($($tol)?);
                let by_differences: bool = or_true!($($fd)?);
                for &pt in points.iter().chain(extra) {
                    let (_, grad) = eval(pt);
                    if !by_differences {
                        continue;
                    }
                    $(let $c: T = $cv;)*
                    let primal = |v: &[T]| {
                        let [$($p),+] = <[T; N]>::try_from(v).unwrap();
                        f($($p),+ $(, $c)*)
                    };
                    let checked = match tolerance {
                        Some(tol) => mica::check::check_gradient_with(primal, &pt, &grad, tol),
                        None => mica::check::check_gradient(primal, &pt, &grad),
                    };
                    if let Err(mismatch) = checked {
                        panic!("{} at {:?}: {}", module_path!(), pt, mismatch);
                    }
                }
            }
        }
    };
}

// --------------------------------------------------- the binary operators

op! {
    add(x, y) = x + y;
    at [0.5, 1.5], [-1.0, 2.0], [3.0, -4.0], [-2.5, -0.5], [1e3, 1e-3];
}
op! {
    add_lit(x) = x + 1.5;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}
op! {
    lit_add(x) = 1.5 + x;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}
op! {
    add_const(x; c = 0.75) = x + c;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}
op! {
    const_add(x; c = 0.75) = c + x;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}

op! {
    sub(x, y) = x - y;
    at [0.5, 1.5], [-1.0, 2.0], [3.0, -4.0], [-2.5, -0.5], [1e3, 1e-3];
}
op! {
    sub_lit(x) = x - 1.5;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}
op! {
    lit_sub(x) = 1.5 - x;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}
op! {
    sub_const(x; c = 0.75) = x - c;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}
op! {
    const_sub(x; c = 0.75) = c - x;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}

op! {
    mul(x, y) = x * y;
    at [0.5, 1.5], [-1.0, 2.0], [3.0, -4.0], [-2.5, -0.5], [0.0, 3.0], [1e3, 1e-3];
}
op! {
    mul_lit(x) = x * 2.5;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}
op! {
    lit_mul(x) = 2.5 * x;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}
op! {
    mul_const(x; c = -0.75) = x * c;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}
op! {
    const_mul(x; c = -0.75) = c * x;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}

op! {
    div(x, y) = x / y;
    at [0.5, 1.5], [-1.0, 2.0], [3.0, -4.0], [-2.5, -0.5], [0.0, 3.0], [1.0, 0.2], [2.0, -0.2];
    f64 at [1.0, 0.02], [-1.0, -0.02];
}
op! {
    div_lit(x) = x / 2.5;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}
op! {
    lit_div(x) = 2.5 / x;
    at [-3.0], [-0.5], [-0.2], [0.2], [0.25], [7.0];
    f64 at [0.02], [-0.02];
}
op! {
    // `1.0 / x`: its slope is written `-y · y` (`y = 1 / x`), a product
    // where a quotient by another constant divides
    one_div(x) = 1.0 / x;
    at [-3.0], [-0.5], [-0.2], [0.2], [0.25], [7.0];
    f64 at [0.02], [-0.02];
}
op! {
    one_div_typed(x) = f32 { 1f32 / x } f64 { 1.0_f64 / x };
    at [-3.0], [-0.5], [-0.2], [0.2], [0.25], [7.0];
}
op! {
    // the logistic function as users write it
    sigmoid_written(x) = 1.0 / (1.0 + (-x).exp());
    at [-6.0], [-1.5], [0.0], [0.3], [2.0], [8.0];
}
op! {
    div_const(x; c = -0.75) = x / c;
    at [-3.0], [-0.5], [0.0], [0.25], [7.0];
}
op! {
    const_div(x; c = -0.75) = c / x;
    at [-3.0], [-0.5], [-0.2], [0.2], [0.25], [7.0];
    f64 at [0.02], [-0.02];
}

op! {
    neg(x) = -x;
    at [-2.0], [-0.5], [0.0], [0.5], [3.0];
}
op! {
    neg_product(x, y) = -(x * y);
    at [0.5, 1.5], [-1.0, 2.0], [3.0, -4.0], [-2.5, -0.5], [0.0, 3.0];
}
op! {
    // the compound assignments record the same four rules
    compound(x, y) = {
        let mut s = x;
        s += y;
        s *= x;
        s -= 0.5;
        s /= y;
        s
    };
    at [0.5, 1.5], [-1.0, 2.0], [3.0, -4.0], [-2.5, -0.5], [0.0, 3.0];
}

// ------------------------------------------------- powers, roots, logs

op! {
    sqrt(x) = x.sqrt();
    // 0.05 is as near 0 as f32's finite-difference step (5e-3 there) allows
    at [0.05], [0.5], [1.0], [2.0], [100.0];
    f64 at [0.01];
}
op! {
    cbrt(x) = x.cbrt();
    at [-8.0], [-0.5], [-0.1], [0.1], [0.5], [27.0];
    f64 at [0.01], [-0.01];
}
op! {
    exp(x) = x.exp();
    at [-10.0], [-3.0], [-0.5], [0.0], [1.0], [5.0];
}
op! {
    exp2(x) = x.exp2();
    at [-10.0], [-3.0], [-0.5], [0.0], [1.0], [5.0];
}
op! {
    exp_m1(x) = x.exp_m1();
    at [-3.0], [-0.5], [-1e-3], [0.0], [1e-3], [0.5], [3.0];
}
op! {
    ln(x) = x.ln();
    at [0.1], [0.5], [1.0], [2.0], [100.0];
    f64 at [0.02];
}
op! {
    log2(x) = x.log2();
    at [0.1], [0.5], [1.0], [2.0], [100.0];
    f64 at [0.02];
}
op! {
    log10(x) = x.log10();
    at [0.1], [0.5], [1.0], [2.0], [100.0];
    f64 at [0.02];
}
op! {
    ln_1p(x) = x.ln_1p();
    // -0.8 is as near -1 as f32's finite-difference step allows
    at [-0.8], [-0.5], [-1e-3], [0.0], [0.5], [10.0];
    f64 at [-0.98];
}
op! {
    // slope to the argument and to the base
    log(x, b) = x.log(b);
    at [0.5, 2.0], [2.0, 10.0], [100.0, 3.0], [0.1, 0.5], [5.0, 1.5], [3.0, 0.2];
    f64 at [0.02, 2.0], [2.0, 1.05];
}
op! {
    log_const_base(x; b = 3.0) = x.log(b);
    at [0.1], [0.5], [1.0], [2.0], [100.0];
}
op! {
    // a constant receiver: the slope to the base only
    log_of_const(b; x = 5.0) = x.log(b);
    at [0.2], [0.5], [2.0], [3.0], [10.0];
}
op! {
    powi3(x) = x.powi(3);
    at [-2.0], [-0.5], [0.0], [0.5], [2.0];
}
op! {
    powi_neg(x) = x.powi(-2);
    at [-2.0], [-0.5], [0.25], [0.5], [2.0], [10.0];
}
op! {
    powi0(x) = x.powi(0);
    at [-2.0], [-0.5], [0.0], [0.5], [2.0];
    expect [0.0];
}
op! {
    powi1(x) = x.powi(1);
    at [-2.0], [-0.5], [0.0], [0.5], [2.0];
    expect [1.0];
}
op! {
    // an exponent that is not a literal
    powi_var(x) = {
        let n = 4;
        x.powi(n)
    };
    at [-2.0], [-0.5], [0.0], [0.5], [2.0];
}
op! {
    // slope to the base and to the exponent (the base positive: a negative
    // base has no slope to the exponent)
    powf(x, p) = x.powf(p);
    at [0.5, 2.5], [2.0, -1.5], [3.0, 0.5], [1.0, 3.0], [10.0, 0.1], [0.1, 2.0];
    f64 at [0.02, 0.5];
}
op! {
    // a constant integral exponent: negative bases have a slope too
    powf_lit(x) = x.powf(3.0);
    at [-2.0], [-0.5], [0.0], [0.5], [2.0];
}
op! {
    powf_const(x; p = 2.5) = x.powf(p);
    at [0.1], [0.5], [1.0], [2.0], [9.0];
}
op! {
    const_powf(x; c = 0.5) = c.powf(x);
    at [-3.0], [-0.5], [0.0], [0.5], [4.0];
}
op! {
    // a literal receiver: typed per float type
    lit_powf(x) = f32 { 2.0_f32.powf(x) } f64 { 2.0_f64.powf(x) };
    at [-3.0], [-0.5], [0.0], [0.5], [4.0];
}
op! {
    recip(x) = x.recip();
    at [-2.0], [-0.5], [-0.2], [0.2], [0.5], [4.0];
    f64 at [0.02], [-0.02];
}

// ------------------------------------------------------------ trigonometry

op! {
    sin(x) = x.sin();
    at [-3.0], [-1.0], [0.0], [0.5], [2.0], [10.0];
}
op! {
    cos(x) = x.cos();
    at [-3.0], [-1.0], [0.0], [0.5], [2.0], [10.0];
}
op! {
    tan(x) = x.tan();
    // near the pole at π/2 (slope ≈ 35 at 1.4, ≈ 2300 at 1.55), central
    // differences err by about (h / d)², h the step and d the distance to the
    // pole: in f32 h = 0.012, d = 0.17 at 1.4, so ≈ 5e-3, over the default
    // 3.5e-3; in f64 h = 1.5e-5, d = 0.021 at 1.55, so ≈ 5.5e-7, over the
    // default 1.5e-7. The looser tolerances cover that and no more.
    at [-1.4], [-0.3], [0.0], [0.5], [1.0], [1.4];
    f64 at [1.55], [-1.55];
    f32 tol 1e-2;
    f64 tol 1e-6;
}
op! {
    asin(x) = x.asin();
    // ±0.9 is as near ±1 as f32's finite-difference step allows
    at [-0.9], [-0.5], [0.0], [0.3], [0.9];
    f64 at [-0.98], [0.98];
}
op! {
    acos(x) = x.acos();
    at [-0.9], [-0.5], [0.0], [0.3], [0.9];
    f64 at [-0.98], [0.98];
}
op! {
    atan(x) = x.atan();
    at [-10.0], [-1.0], [0.0], [0.5], [3.0];
}
op! {
    // slope to `a` and to `b` in all four quadrants and on the axes
    atan2(a, b) = a.atan2(b);
    at [1.0, 1.0], [-1.0, 0.5], [0.5, -2.0], [-0.3, -0.7], [2.0, 0.0], [0.0, 1.0], [1e-3, 1.0];
}
op! {
    atan2_const(a; b = -0.5) = a.atan2(b);
    at [-2.0], [-0.5], [0.5], [1.0], [3.0];
}
op! {
    const_atan2(b; a = 0.7) = a.atan2(b);
    at [-2.0], [-0.5], [0.0], [0.5], [3.0];
}

// -------------------------------------------------------------- hyperbolic

op! {
    sinh(x) = x.sinh();
    at [-3.0], [-0.5], [0.0], [1.0], [4.0];
}
op! {
    cosh(x) = x.cosh();
    at [-3.0], [-0.5], [0.0], [1.0], [4.0];
}
op! {
    tanh(x) = x.tanh();
    at [-3.0], [-0.5], [0.0], [1.0], [4.0];
}
op! {
    asinh(x) = x.asinh();
    at [-10.0], [-1.0], [0.0], [0.5], [5.0];
}
op! {
    acosh(x) = x.acosh();
    // 1.1 is as near 1 as f32's finite-difference step allows
    at [1.1], [1.5], [2.0], [10.0], [100.0];
    f64 at [1.02];
}
op! {
    atanh(x) = x.atanh();
    at [-0.9], [-0.5], [0.0], [0.5], [0.9];
    f64 at [-0.98], [0.98];
}

// ------------------------------------------------------- kinks and friends

op! {
    abs(x) = x.abs();
    // ±0.01: near the kink, but farther than f32's finite-difference step
    at [-2.0], [-0.5], [-0.01], [0.01], [0.5], [3.0];
    f64 at [-1e-4], [1e-4];
}
op! {
    // ties are checked in `min_and_max_give_a_tie_to_the_receiver`
    min(a, b) = a.min(b);
    at [1.0, 2.0], [2.0, 1.0], [-1.0, -3.0], [0.5, -0.5], [-2.0, 4.0];
}
op! {
    max(a, b) = a.max(b);
    at [1.0, 2.0], [2.0, 1.0], [-1.0, -3.0], [0.5, -0.5], [-2.0, 4.0];
}
op! {
    min_lit(a) = a.min(0.5);
    at [-2.0], [0.0], [0.4], [0.6], [3.0];
}
op! {
    max_lit(a) = a.max(0.5);
    at [-2.0], [0.0], [0.4], [0.6], [3.0];
}
op! {
    const_min(b; a = 0.5) = a.min(b);
    at [-2.0], [0.0], [0.4], [0.6], [3.0];
}
op! {
    const_max(b; a = 0.5) = a.max(b);
    at [-2.0], [0.0], [0.4], [0.6], [3.0];
}
op! {
    // inside, below and above `[lo, hi]`: all three slopes
    clamp(x, lo, hi) = x.clamp(lo, hi);
    at [0.5, 0.0, 1.0], [-1.0, 0.0, 1.0], [2.0, 0.0, 1.0],
       [-0.5, -1.0, 0.25], [-3.0, -2.0, 2.0], [5.0, -1.0, 4.0];
}
op! {
    clamp_lit(x) = x.clamp(-1.0, 1.0);
    at [-3.0], [-0.5], [0.0], [0.5], [3.0];
}
op! {
    const_clamp(lo, hi; x = 0.5) = x.clamp(lo, hi);
    at [0.0, 1.0], [0.6, 1.0], [-1.0, 0.4], [-2.0, 2.0], [1.0, 3.0];
}
op! {
    hypot(a, b) = a.hypot(b);
    at [3.0, 4.0], [-1.0, 2.0], [0.5, -0.5], [-2.0, -3.0], [1e-3, 1.0], [0.0, 1.0];
}
op! {
    hypot_lit(a) = a.hypot(2.0);
    at [-3.0], [-0.5], [0.0], [0.5], [4.0];
}
op! {
    const_hypot(b; a = -1.5) = a.hypot(b);
    at [-3.0], [-0.5], [0.0], [0.5], [4.0];
}
op! {
    mul_add(x, a, b) = x.mul_add(a, b);
    at [2.0, 3.0, 4.0], [-1.0, 0.5, -2.0], [0.0, -3.0, 1.0], [1.5, 0.0, 0.0], [-0.25, -4.0, 10.0];
}
op! {
    mul_add_lit(x) = x.mul_add(2.0, 1.0);
    at [-3.0], [-0.5], [0.0], [0.5], [4.0];
}
op! {
    const_mul_add(a, b; x = 1.5) = x.mul_add(a, b);
    at [2.0, 3.0], [-1.0, 0.5], [0.0, -3.0], [1.5, 0.0], [-0.25, -4.0];
}

op! {
    // `x − x.trunc()`: slope 1 between the integers
    fract(x) = x.fract();
    at [-2.7], [-1.3], [-0.6], [0.2], [1.7], [3.4];
}
op! {
    // every pairing of signs: slope ±1 to `x`, none to the sign's source
    copysign(x, s) = x.copysign(s);
    at [1.5, 2.0], [1.5, -2.0], [-0.5, 3.0], [-0.5, -0.25], [2.0, 0.5];
}
op! {
    copysign_lit(x) = x.copysign(-1.0);
    at [-2.0], [-0.5], [0.5], [1.25], [3.0];
}
op! {
    midpoint(a, b) = a.midpoint(b);
    at [1.0, 2.0], [-1.0, 3.0], [0.5, -0.5], [-2.0, -4.0], [1e3, 1.0];
}
op! {
    // both signs of each side, away from the steps
    rem_euclid(x, b) = x.rem_euclid(b);
    at [2.7, 1.0], [-1.3, 1.0], [5.5, 2.0], [-5.5, 2.0], [3.2, -1.5], [-3.2, -1.5];
}
op! {
    rem_euclid_lit(x) = x.rem_euclid(0.75);
    at [-2.7], [-1.3], [-0.6], [0.2], [1.7], [3.4];
}

// ------------------------------------------------------------ zero slopes

op! {
    floor(x) = x.floor();
    at [-2.7], [-1.3], [-0.6], [0.2], [1.7], [3.4];
    expect [0.0];
}
op! {
    ceil(x) = x.ceil();
    at [-2.7], [-1.3], [-0.6], [0.2], [1.7], [3.4];
    expect [0.0];
}
op! {
    round(x) = x.round();
    at [-2.7], [-1.3], [-0.6], [0.2], [1.7], [3.4];
    expect [0.0];
}
op! {
    trunc(x) = x.trunc();
    at [-2.7], [-1.3], [-0.6], [0.2], [1.7], [3.4];
    expect [0.0];
}
op! {
    signum(x) = x.signum();
    at [-2.7], [-1.3], [-0.6], [0.2], [1.7], [3.4];
    expect [0.0];
}
op! {
    round_ties_even(x) = x.round_ties_even();
    at [-2.7], [-1.3], [-0.6], [0.2], [1.7], [3.4];
    expect [0.0];
}
op! {
    div_euclid(x, b) = x.div_euclid(b);
    at [2.7, 1.0], [-1.3, 1.0], [5.5, 2.0], [-5.5, 2.0], [3.2, -1.5];
    expect [0.0, 0.0];
}
op! {
    // a zero-slope method's result is a constant to the rest of the record
    times_floor(x) = x * x.floor() + x.signum();
    at [-2.7], [-1.3], [-0.6], [0.2], [1.7], [3.4];
    expect [x.floor()];
}

// ------------------------------------------------------ runtime functions

op! {
    sigmoid(x) = mica::sigmoid(x);
    at [-10.0], [-1.0], [0.0], [0.5], [8.0];
}
op! {
    relu(x) = mica::relu(x);
    at [-2.0], [-0.5], [-0.01], [0.01], [0.5], [100.0];
    f64 at [-1e-4], [1e-4];
}
op! {
    softplus(x) = mica::softplus(x);
    at [-10.0], [-1.0], [0.0], [1.0], [20.0];
}
op! {
    // the runtime functions compose with the recorded vocabulary
    sigmoid_of_product(x, y) = mica::sigmoid(x * y) + mica::softplus(y - x) * mica::relu(x);
    at [0.5, 1.5], [-1.0, 2.0], [3.0, -4.0], [-2.5, -0.5], [1.0, 0.5];
}

// ----------------------------------------------------------------- detach

op! {
    // the detached factor is a constant: slope `detach(x) = x`, not `2x`
    detach_mul(x) = x * mica::detach(x);
    at [-2.0], [-0.5], [0.0], [0.5], [3.0];
    expect [x];
    fd false;
}
op! {
    // nothing flows back through the detached path at all
    detach_mixed(x, y) = mica::detach(x * y).sin() + y * x;
    at [0.5, 1.5], [-1.0, 2.0], [3.0, -4.0], [-2.5, -0.5], [0.0, 3.0];
    expect [y, x];
    fd false;
}
op! {
    detach_only(x) = mica::detach(x).exp() * 3.0 + 1.0;
    at [-2.0], [-0.5], [0.0], [0.5], [3.0];
    expect [0.0];
    fd false;
}

// ------------------------------------- conventions, kinks, singular points

/// The slopes of a case at `at` are exactly `want` (`==`: either zero, an
/// infinity of the right sign; a NaN in `want` asks for NaN).
#[track_caller]
fn exact<T: Real, const N: usize>(
    case: &str,
    eval: fn([T; N]) -> (T, [T; N]),
    at: [f64; N],
    want: [f64; N],
) {
    let (_, got) = eval(at.map(T::of));
    for i in 0..N {
        let ok = if want[i].is_nan() {
            got[i].nan()
        } else {
            got[i] == T::of(want[i])
        };
        assert!(
            ok,
            "{case} at {at:?}: slope {i} is {:?}, expected {:?}",
            got[i], want[i]
        );
    }
}

/// `exact` in `f32` and in `f64`.
macro_rules! slopes_at {
    ($case:ident $at:tt => $want:expr) => {
        exact(
            concat!(stringify!($case), " (f32)"),
            $case::in_f32::eval,
            $at,
            $want,
        );
        exact(
            concat!(stringify!($case), " (f64)"),
            $case::in_f64::eval,
            $at,
            $want,
        );
    };
}

/// The slope of a one-argument case at `at`, closer to a singular point than
/// finite differences can go, against its closed form evaluated in `f64` at
/// the very point the case saw. Held to the checker's default relative
/// tolerance `10 √ε`: rules written with `1 − x²` or `x² − 1` lose up to
/// `√ε / 2` of relative precision to cancellation next to `±1`.
#[track_caller]
fn near<T: Real>(case: &str, eval: fn([T; 1]) -> (T, [T; 1]), at: f64, slope: fn(f64) -> f64) {
    let x = T::of(at);
    let (_, [got]) = eval([x]);
    let want = slope(x.wide());
    let tolerance = 10.0 * T::EPS.wide().sqrt();
    assert!(
        (got.wide() - want).abs() <= tolerance * want.abs(),
        "{case} at {x:?}: slope {got:?}, closed form {want:e}"
    );
}

/// `near` in `f32` and in `f64`.
macro_rules! near_singular {
    ($case:ident at $($at:expr),+ => $slope:expr) => {
        $(
            near(concat!(stringify!($case), " (f32)"), $case::in_f32::eval, $at, $slope);
            near(concat!(stringify!($case), " (f64)"), $case::in_f64::eval, $at, $slope);
        )+
    };
}

const INF: f64 = f64::INFINITY;

#[test]
fn abs_and_relu_have_slope_zero_at_zero() {
    slopes_at!(abs [0.0] => [0.0]);
    slopes_at!(abs [-0.0] => [0.0]);
    slopes_at!(relu [0.0] => [0.0]);
    slopes_at!(relu [-0.0] => [0.0]);
    // and are the identity or its negation either side
    slopes_at!(abs [-1e-30] => [-1.0]);
    slopes_at!(abs [1e-30] => [1.0]);
    slopes_at!(relu [-1e-30] => [0.0]);
    slopes_at!(relu [1e-30] => [1.0]);
}

#[test]
fn abs_and_relu_pass_nan_on() {
    slopes_at!(abs [f64::NAN] => [f64::NAN]);
    slopes_at!(relu [f64::NAN] => [f64::NAN]);
}

#[test]
fn min_and_max_give_a_tie_to_the_receiver() {
    for tie in [1.5, -2.0, 0.0, 1e30] {
        slopes_at!(min [tie, tie] => [1.0, 0.0]);
        slopes_at!(max [tie, tie] => [1.0, 0.0]);
    }
    // zeros of either sign are equal: a tie
    slopes_at!(min [0.0, -0.0] => [1.0, 0.0]);
    slopes_at!(max [-0.0, 0.0] => [1.0, 0.0]);
    // a recorded receiver against a literal takes the whole slope...
    slopes_at!(min_lit [0.5] => [1.0]);
    slopes_at!(max_lit [0.5] => [1.0]);
    // ...and a constant receiver takes it away from the recorded argument
    slopes_at!(const_min [0.5] => [0.0]);
    slopes_at!(const_max [0.5] => [0.0]);
}

#[test]
fn clamp_on_its_bounds_passes_the_slope_to_the_receiver() {
    slopes_at!(clamp [0.0, 0.0, 1.0] => [1.0, 0.0, 0.0]);
    slopes_at!(clamp [1.0, 0.0, 1.0] => [1.0, 0.0, 0.0]);
    slopes_at!(clamp [0.5, 0.5, 0.5] => [1.0, 0.0, 0.0]);
    slopes_at!(clamp_lit [-1.0] => [1.0]);
    slopes_at!(clamp_lit [1.0] => [1.0]);
    // a constant receiver on a bound: neither bound moves the value's slope
    slopes_at!(const_clamp [0.5, 1.0] => [0.0, 0.0]);
    slopes_at!(const_clamp [-1.0, 0.5] => [0.0, 0.0]);
    // strictly outside, the bound it sticks to takes the slope
    slopes_at!(const_clamp [0.6, 1.0] => [1.0, 0.0]);
    slopes_at!(const_clamp [-1.0, 0.4] => [0.0, 1.0]);
}

#[test]
fn zero_slope_methods_are_exactly_flat_even_on_their_jumps() {
    for x in [-2.0, -1.0, -0.0, 0.0, 1.0, 2.0, -2.5, -0.5, 0.5, 2.5, 1e30] {
        slopes_at!(floor [x] => [0.0]);
        slopes_at!(ceil [x] => [0.0]);
        slopes_at!(round [x] => [0.0]);
        slopes_at!(trunc [x] => [0.0]);
        slopes_at!(signum [x] => [0.0]);
    }
    slopes_at!(signum [f64::NAN] => [0.0]);
}

#[test]
fn detach_passes_no_slope_back() {
    // also `expect`ed at every point of the cases; here at a few more
    for x in [-1e3, -1.0, 0.25, 2.0, 1e3] {
        slopes_at!(detach_mul [x] => [x]);
        slopes_at!(detach_only [x] => [0.0]);
        slopes_at!(detach_mixed [x, 2.0] => [2.0, x]);
    }
}

#[test]
fn singular_points_give_ieee_infinities_without_panicking() {
    // documented in `mica::rules`: sqrt and ln at 0, asin at ±1 are +∞
    slopes_at!(sqrt [0.0] => [INF]);
    slopes_at!(ln [0.0] => [INF]);
    slopes_at!(asin [1.0] => [INF]);
    slopes_at!(asin [-1.0] => [INF]);
    // the same arithmetic elsewhere
    slopes_at!(cbrt [0.0] => [INF]);
    slopes_at!(log2 [0.0] => [INF]);
    slopes_at!(log10 [0.0] => [INF]);
    slopes_at!(ln_1p [-1.0] => [INF]);
    slopes_at!(acos [1.0] => [-INF]);
    slopes_at!(acos [-1.0] => [-INF]);
    slopes_at!(acosh [1.0] => [INF]);
    slopes_at!(atanh [1.0] => [INF]);
    slopes_at!(atanh [-1.0] => [INF]);
    slopes_at!(recip [0.0] => [-INF]);
    slopes_at!(powf_const [0.0] => [0.0]);
}

#[test]
fn slopes_next_to_singular_points_follow_the_closed_form() {
    near_singular!(sqrt at 1e-30, 1e-12 => |x| 0.5 / x.sqrt());
    near_singular!(cbrt at 1e-30, -1e-30, 1e-12 => |x| 1.0 / (3.0 * x.cbrt() * x.cbrt()));
    near_singular!(ln at 1e-30, 1e-12 => |x| 1.0 / x);
    near_singular!(log2 at 1e-30, 1e-12 => |x| 1.0 / (x * std::f64::consts::LN_2));
    near_singular!(log10 at 1e-30, 1e-12 => |x| 1.0 / (x * std::f64::consts::LN_10));
    near_singular!(ln_1p at -1.0 + 1e-6, -1.0 + 1e-4 => |x| 1.0 / (1.0 + x));
    near_singular!(asin at 1.0 - 1e-6, -1.0 + 1e-6, 1.0 - 1e-4 => |x| 1.0 / ((1.0 - x) * (1.0 + x)).sqrt());
    near_singular!(acos at 1.0 - 1e-6, -1.0 + 1e-6, 1.0 - 1e-4 => |x| -1.0 / ((1.0 - x) * (1.0 + x)).sqrt());
    near_singular!(acosh at 1.0 + 1e-6, 1.0 + 1e-4, 1.0 + 3e-3 => |x| 1.0 / ((x - 1.0) * (x + 1.0)).sqrt());
    near_singular!(atanh at 1.0 - 1e-6, -1.0 + 1e-6, 1.0 - 1e-4 => |x| 1.0 / ((1.0 - x) * (1.0 + x)));
    near_singular!(recip at 1e-15, -1e-15 => |x| -1.0 / (x * x));
    near_singular!(tan at std::f64::consts::FRAC_PI_2 - 1e-4, 1.5 => |x| 1.0 / (x.cos() * x.cos()));
}

// --------------------------------------------- regressions (found here)

/// `x.powf(p)` at base 0: `0ᵖ` is flat in `p` for `p > 0`, so the slope to
/// the exponent is 0, not `0 · ln 0 = NaN`.
#[test]
fn powf_slope_to_the_exponent_at_a_zero_base_is_zero() {
    slopes_at!(powf [0.0, 2.0] => [0.0, 0.0]);
    slopes_at!(powf [0.0, 0.5] => [INF, 0.0]);
}

/// `-0.0` equals `0.0`: `sqrt`, `ln`, `log2`, `log10` have slope `+∞` at
/// both (`-0.0` comes from ordinary code such as `-x` at 0).
#[test]
fn singular_slopes_at_negative_zero_are_those_at_zero() {
    slopes_at!(sqrt [-0.0] => [INF]);
    slopes_at!(ln [-0.0] => [INF]);
    slopes_at!(log2 [-0.0] => [INF]);
    slopes_at!(log10 [-0.0] => [INF]);
}

/// `1.0 / x` and the logistic function written out, against their slopes
/// by formula (`-1 / x²`, `e / (1 + e)²`), in both precisions.
#[test]
fn reciprocals_follow_their_closed_forms() {
    for x in [-3.0, -0.5, -0.02, 0.02, 0.2, 7.0, 1e-20, 1e20] {
        let (_, [g]) = one_div::in_f64::eval([x]);
        let want = -1.0 / (x * x);
        assert!(
            (g - want).abs() <= 4.0 * f64::EPSILON * want.abs(),
            "1/x at {x}: {g} vs {want}"
        );
        if !(1e-3..=1e3).contains(&x.abs()) {
            continue; // x² leaves f32's range
        }
        let x32 = x as f32;
        let (_, [g]) = one_div::in_f32::eval([x32]);
        let want = -1.0 / (x32 * x32);
        assert!(
            (g - want).abs() <= 4.0 * f32::EPSILON * want.abs(),
            "1/x at {x32}: {g} vs {want}"
        );
    }
    for x in [-6.0, -1.5, 0.0, 0.3, 2.0, 8.0] {
        let (_, [g]) = sigmoid_written::in_f64::eval([x]);
        // `e / (1 + e)²`, `e = exp(-x)`: no cancellation, as `s (1 - s)`
        // has for large `x`
        let e = (-x).exp();
        let want = e / ((1.0 + e) * (1.0 + e));
        assert!(
            (g - want).abs() <= 8.0 * f64::EPSILON * want.abs(),
            "σ at {x}: {g} vs {want}"
        );
        let (_, [g]) = sigmoid_written::in_f32::eval([x as f32]);
        let e = (-x as f32).exp();
        let want = e / ((1.0 + e) * (1.0 + e));
        assert!(
            (g - want).abs() <= 8.0 * f32::EPSILON * want.abs(),
            "σ at {x}: {g} vs {want}"
        );
    }
}
