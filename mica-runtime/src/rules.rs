//! The numeric half of every derivative rule.
//!
//! Each recorded operation `y = φ(x₀, …, xₖ)` has one function here per
//! argument it can pass a slope to, named `OP_dI`. It receives every argument
//! of the operation, the operation's output `y` (so rules such as `exp` and
//! `tanh` can reuse it) and the output's adjoint `adj`, and returns
//! `adj · ∂φ/∂xᵢ`. The macro's rule table (`mica-macros/src/rules.rs`) maps a
//! method or operator to these names; adding a rule is one line there and one
//! function here.
//!
//! Slopes follow the usual calculus wherever it is defined and plain IEEE
//! arithmetic where it is not: `sqrt_d0` at `0` is `+∞`, `ln_d0` at `0` is
//! `+∞`, `asin_d0` at `±1` is `+∞`. Two documented conventions choose a
//! subgradient where the function has a kink: `abs` has slope `0` at `0`, and
//! `min`/`max` pass the whole slope to the receiver on a tie.
//!
//! ```
//! use mica_runtime::rules;
//! // d/dx sin(x) at x = 0 is cos(0) = 1
//! assert_eq!(rules::sin_d0(0.0_f64, 0.0_f64.sin(), 1.0), 1.0);
//! // the seed scales the slope
//! assert_eq!(rules::mul_d1(3.0_f64, 4.0, 12.0, 2.0), 6.0);
//! ```
#![allow(clippy::missing_docs_in_private_items)]

pub use crate::real::Real;

#[inline(always)]
fn two<T: Real>() -> T {
    T::one() + T::one()
}

// ---------------------------------------------------------------- operators

/// `a + b`, slope to `a`
#[inline(always)]
pub fn add_d0<T: Real>(_a: T, _b: T, _y: T, adj: T) -> T {
    adj
}
/// `a + b`, slope to `b`
#[inline(always)]
pub fn add_d1<T: Real>(_a: T, _b: T, _y: T, adj: T) -> T {
    adj
}
/// `a - b`, slope to `a`
#[inline(always)]
pub fn sub_d0<T: Real>(_a: T, _b: T, _y: T, adj: T) -> T {
    adj
}
/// `a - b`, slope to `b`
#[inline(always)]
pub fn sub_d1<T: Real>(_a: T, _b: T, _y: T, adj: T) -> T {
    -adj
}
/// `a * b`, slope to `a`
#[inline(always)]
pub fn mul_d0<T: Real>(_a: T, b: T, _y: T, adj: T) -> T {
    adj * b
}
/// `a * b`, slope to `b`
#[inline(always)]
pub fn mul_d1<T: Real>(a: T, _b: T, _y: T, adj: T) -> T {
    adj * a
}
/// `a / b`, slope to `a`
#[inline(always)]
pub fn div_d0<T: Real>(_a: T, b: T, _y: T, adj: T) -> T {
    adj / b
}
/// `a / b`, slope to `b`: `-a / b² = -y / b`
#[inline(always)]
pub fn div_d1<T: Real>(_a: T, b: T, y: T, adj: T) -> T {
    -(adj * y) / b
}
/// `-a`
#[inline(always)]
pub fn neg_d0<T: Real>(_a: T, _y: T, adj: T) -> T {
    -adj
}

// ------------------------------------------------------------ unary methods

/// `x.sqrt()`: `1 / (2 √x)`
#[inline(always)]
pub fn sqrt_d0<T: Real>(_x: T, y: T, adj: T) -> T {
    // `sqrt(-0.0)` is `-0.0`: the slope there is still `+∞`
    adj / (two::<T>() * y.abs())
}
/// `x.to_radians()`: the constant `π / 180`
#[inline(always)]
pub fn to_radians_d0<T: Real>(_x: T, _y: T, adj: T) -> T {
    adj.to_radians()
}
/// `x.to_degrees()`: the constant `180 / π`
#[inline(always)]
pub fn to_degrees_d0<T: Real>(_x: T, _y: T, adj: T) -> T {
    adj.to_degrees()
}
/// `x.cbrt()`: `1 / (3 ∛x²)`
#[inline(always)]
pub fn cbrt_d0<T: Real>(_x: T, y: T, adj: T) -> T {
    adj / ((two::<T>() + T::one()) * y * y)
}
/// `x.exp()`: `eˣ`
#[inline(always)]
pub fn exp_d0<T: Real>(_x: T, y: T, adj: T) -> T {
    adj * y
}
/// `x.exp2()`: `2ˣ ln 2`
#[inline(always)]
pub fn exp2_d0<T: Real>(_x: T, y: T, adj: T) -> T {
    adj * y * T::LN_2()
}
/// `x.exp_m1()`: `eˣ = y + 1`
#[inline(always)]
pub fn exp_m1_d0<T: Real>(_x: T, y: T, adj: T) -> T {
    adj * (y + T::one())
}
/// `x.ln()`: `1 / x`
#[inline(always)]
pub fn ln_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    // `+ 0` turns `-0.0` into `+0.0`: `ln` of either is `-∞`, slope `+∞`
    adj / (x + T::zero())
}
/// `x.log2()`: `1 / (x ln 2)`
#[inline(always)]
pub fn log2_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj / ((x + T::zero()) * T::LN_2())
}
/// `x.log10()`: `1 / (x ln 10)`
#[inline(always)]
pub fn log10_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj / ((x + T::zero()) * T::LN_10())
}
/// `x.ln_1p()`: `1 / (1 + x)`
#[inline(always)]
pub fn ln_1p_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj / (T::one() + x)
}
/// `x.sin()`: `cos x`
#[inline(always)]
pub fn sin_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj * x.cos()
}
/// `x.cos()`: `-sin x`
#[inline(always)]
pub fn cos_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    -(adj * x.sin())
}
/// `x.tan()`: `1 + tan² x`
#[inline(always)]
pub fn tan_d0<T: Real>(_x: T, y: T, adj: T) -> T {
    adj * (T::one() + y * y)
}
/// `x.asin()`: `1 / √(1 − x²)`
#[inline(always)]
pub fn asin_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj / (T::one() - x * x).sqrt()
}
/// `x.acos()`: `−1 / √(1 − x²)`
#[inline(always)]
pub fn acos_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    -adj / (T::one() - x * x).sqrt()
}
/// `x.atan()`: `1 / (1 + x²)`
#[inline(always)]
pub fn atan_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj / (T::one() + x * x)
}
/// `x.sinh()`: `cosh x`
#[inline(always)]
pub fn sinh_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj * x.cosh()
}
/// `x.cosh()`: `sinh x`
#[inline(always)]
pub fn cosh_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj * x.sinh()
}
/// `x.tanh()`: `1 − tanh² x`
#[inline(always)]
pub fn tanh_d0<T: Real>(_x: T, y: T, adj: T) -> T {
    adj * (T::one() - y * y)
}
/// `x.asinh()`: `1 / √(x² + 1)`
#[inline(always)]
pub fn asinh_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj / (x * x + T::one()).sqrt()
}
/// `x.acosh()`: `1 / √(x² − 1)`
#[inline(always)]
pub fn acosh_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj / (x * x - T::one()).sqrt()
}
/// `x.atanh()`: `1 / (1 − x²)`
#[inline(always)]
pub fn atanh_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj / (T::one() - x * x)
}
/// `x.abs()`: the sign of `x`, with slope `0` at `0` (NaN stays NaN)
#[inline(always)]
pub fn abs_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    if x > T::zero() {
        adj
    } else if x < T::zero() {
        -adj
    } else if x.is_nan() {
        x
    } else {
        T::zero()
    }
}
/// `x.recip()`: `−1 / x² = −y²`
#[inline(always)]
pub fn recip_d0<T: Real>(_x: T, y: T, adj: T) -> T {
    -(adj * y * y)
}

// ----------------------------------------------------------- binary methods

/// `x.powi(n)`: `n xⁿ⁻¹`
#[inline(always)]
pub fn powi_d0<T: Real>(x: T, n: i32, _y: T, adj: T) -> T {
    match n {
        0 => T::zero(),
        _ => adj * T::from(n).unwrap_or_else(T::nan) * x.powi(n - 1),
    }
}
/// `x.powf(p)`, slope to `x`: `p xᵖ⁻¹`
#[inline(always)]
pub fn powf_d0<T: Real>(x: T, p: T, _y: T, adj: T) -> T {
    if p == T::zero() {
        T::zero()
    } else {
        adj * p * x.powf(p - T::one())
    }
}
/// `x.powf(p)`, slope to `p`: `xᵖ ln x`
#[inline(always)]
pub fn powf_d1<T: Real>(x: T, _p: T, y: T, adj: T) -> T {
    // `0ᵖ` is flat in `p` (for `p > 0`): `y · ln x` would be `0 · -∞`
    if y == T::zero() {
        T::zero()
    } else {
        adj * y * x.ln()
    }
}
/// `x.log(b)`, slope to `x`: `1 / (x ln b)`
#[inline(always)]
pub fn log_d0<T: Real>(x: T, b: T, _y: T, adj: T) -> T {
    adj / (x * b.ln())
}
/// `x.log(b)`, slope to `b`: `−ln x / (b ln² b) = −y / (b ln b)`
#[inline(always)]
pub fn log_d1<T: Real>(_x: T, b: T, y: T, adj: T) -> T {
    -(adj * y) / (b * b.ln())
}
/// `a.atan2(b)` (angle of the point `(b, a)`), slope to `a`: `b / (a² + b²)`
#[inline(always)]
pub fn atan2_d0<T: Real>(a: T, b: T, _y: T, adj: T) -> T {
    adj * b / (a * a + b * b)
}
/// `a.atan2(b)`, slope to `b`: `−a / (a² + b²)`
#[inline(always)]
pub fn atan2_d1<T: Real>(a: T, b: T, _y: T, adj: T) -> T {
    -(adj * a) / (a * a + b * b)
}
/// `a.hypot(b)`, slope to `a`: `a / y`
#[inline(always)]
pub fn hypot_d0<T: Real>(a: T, _b: T, y: T, adj: T) -> T {
    adj * a / y
}
/// `a.hypot(b)`, slope to `b`: `b / y`
#[inline(always)]
pub fn hypot_d1<T: Real>(_a: T, b: T, y: T, adj: T) -> T {
    adj * b / y
}
/// Whether `a.min(b)` / `a.max(b)` picked the receiver (ties go to it).
#[inline(always)]
fn picked_receiver<T: Real>(a: T, b: T, y: T) -> bool {
    y == a || b.is_nan() || (a.is_nan() && y.is_nan())
}
/// Whether `a.min(b)` / `a.max(b)` (which gave `y`) hands its slope to
/// `b`: the test of [`min_d1`] and [`max_d1`]. A selection's forward
/// sweep keeps the iteration where this last held (its reverse walks that
/// iteration alone).
#[doc(hidden)]
#[inline(always)]
pub fn picked_argument<T: Real>(a: T, b: T, y: T) -> bool {
    !picked_receiver(a, b, y)
}
/// `a.min(b)`, slope to `a`
#[inline(always)]
pub fn min_d0<T: Real>(a: T, b: T, y: T, adj: T) -> T {
    if picked_receiver(a, b, y) {
        adj
    } else {
        T::zero()
    }
}
/// `a.min(b)`, slope to `b`
#[inline(always)]
pub fn min_d1<T: Real>(a: T, b: T, y: T, adj: T) -> T {
    if picked_receiver(a, b, y) {
        T::zero()
    } else {
        adj
    }
}
/// `a.max(b)`, slope to `a`
#[inline(always)]
pub fn max_d0<T: Real>(a: T, b: T, y: T, adj: T) -> T {
    min_d0(a, b, y, adj)
}
/// `a.max(b)`, slope to `b`
#[inline(always)]
pub fn max_d1<T: Real>(a: T, b: T, y: T, adj: T) -> T {
    min_d1(a, b, y, adj)
}

// ---------------------------------------------------------- ternary methods

/// `x.mul_add(a, b)` = `x·a + b`, slope to `x`
#[inline(always)]
pub fn mul_add_d0<T: Real>(_x: T, a: T, _b: T, _y: T, adj: T) -> T {
    adj * a
}
/// `x.mul_add(a, b)`, slope to `a`
#[inline(always)]
pub fn mul_add_d1<T: Real>(x: T, _a: T, _b: T, _y: T, adj: T) -> T {
    adj * x
}
/// `x.mul_add(a, b)`, slope to `b`
#[inline(always)]
pub fn mul_add_d2<T: Real>(_x: T, _a: T, _b: T, _y: T, adj: T) -> T {
    adj
}
/// `x.clamp(lo, hi)`, slope to `x`: `1` inside `[lo, hi]`, else `0`
#[inline(always)]
pub fn clamp_d0<T: Real>(x: T, lo: T, hi: T, _y: T, adj: T) -> T {
    if x < lo || x > hi {
        T::zero()
    } else {
        adj
    }
}
/// `x.clamp(lo, hi)`, slope to `lo`: `1` below the interval
#[inline(always)]
pub fn clamp_d1<T: Real>(x: T, lo: T, _hi: T, _y: T, adj: T) -> T {
    if x < lo {
        adj
    } else {
        T::zero()
    }
}
/// `x.clamp(lo, hi)`, slope to `hi`: `1` above the interval
#[inline(always)]
pub fn clamp_d2<T: Real>(x: T, _lo: T, hi: T, _y: T, adj: T) -> T {
    if x > hi {
        adj
    } else {
        T::zero()
    }
}

/// `x.fract()` = `x − x.trunc()`: `1` (between the integers)
#[inline(always)]
pub fn fract_d0<T: Real>(_x: T, _y: T, adj: T) -> T {
    adj
}
/// `x.copysign(s)`, slope to `x`: `1` where `x` has `s`'s sign (the value
/// is `x`), `−1` where not (the value is `−x`)
#[inline(always)]
pub fn copysign_d0<T: Real>(x: T, s: T, _y: T, adj: T) -> T {
    if x.is_sign_negative() == s.is_sign_negative() {
        adj
    } else {
        -adj
    }
}
/// `x.copysign(s)`, slope to `s`: `0` (only its sign is read)
#[inline(always)]
pub fn copysign_d1<T: Real>(_x: T, _s: T, _y: T, _adj: T) -> T {
    T::zero()
}
/// `a.midpoint(b)` = `(a + b) / 2`, slope to `a`: `½`
#[inline(always)]
pub fn midpoint_d0<T: Real>(_a: T, _b: T, _y: T, adj: T) -> T {
    adj / two::<T>()
}
/// `a.midpoint(b)`, slope to `b`: `½`
#[inline(always)]
pub fn midpoint_d1<T: Real>(_a: T, _b: T, _y: T, adj: T) -> T {
    adj / two::<T>()
}
/// `x.rem_euclid(b)` = `x − b · x.div_euclid(b)`, slope to `x`: `1`
/// (between the steps)
#[inline(always)]
pub fn rem_euclid_d0<T: Real>(_x: T, _b: T, _y: T, adj: T) -> T {
    adj
}
/// `x.rem_euclid(b)`, slope to `b`: `−x.div_euclid(b)`, the whole number
/// `(x − y) / b` (rounded: it is one up to rounding)
#[inline(always)]
pub fn rem_euclid_d1<T: Real>(x: T, b: T, y: T, adj: T) -> T {
    -(adj * ((x - y) / b).round())
}

// ------------------------------------------------------ runtime functions
//
// `mica::sigmoid`, `mica::relu` and `mica::softplus` called by that path are
// recorded as rules, so their reverse reads the value the forward computed
// instead of running the function again. Each slope is the one its
// `*_backward` adds, bit for bit.

/// `mica::sigmoid(x)`: `y (1 − y)`
#[inline(always)]
pub fn sigmoid_d0<T: Real>(_x: T, y: T, adj: T) -> T {
    adj * (y * (T::one() - y))
}
/// `mica::relu(x)`: `1` for `x > 0`, else `0` (NaN passes through)
#[inline(always)]
pub fn relu_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj * if x > T::zero() {
        T::one()
    } else if x.is_nan() {
        x
    } else {
        T::zero()
    }
}
/// `mica::softplus(x)`: the logistic function of `x`
#[inline(always)]
pub fn softplus_d0<T: Real>(x: T, _y: T, adj: T) -> T {
    adj * crate::functions::sigmoid(x)
}
